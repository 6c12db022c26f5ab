import { createRequire } from 'node:module';
import type snowballModule from 'snowball-stemmers';

// Required, not imported: an ESM import of this 870 kB CommonJS file first scans it for its exports
// (cjs-module-lexer), about 100 ms of every cold command that tokenizes; require skips that scan.
const snowball: typeof snowballModule = createRequire(import.meta.url)('snowball-stemmers');

/**
 * Tokenizer shared by the full-text index and the offline embedder, so both see the same terms.
 * Text is lower-cased, split on Unicode letters/digits, stop words dropped, words stemmed with the
 * Snowball stemmer of the configured language. Stems are memoised: vocabularies are small, text is not.
 */
export interface TokenizerOptions {
  /** Snowball language name ("english", "german", …) or "none" for no stemming. */
  language?: string;
  /** Longest token kept; longer runs (hashes, base64) are noise for ranking. */
  maxTokenLength?: number;
}

const ENGLISH_STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other ' +
    'our ours ourselves out over own same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves'
  ).split(' '),
);

/**
 * Irregular English verb forms Snowball leaves alone ("led" ≠ "lead"), mapped to their base form
 * before stemming so a question about who "leads" meets a passage saying who "led".
 */
const ENGLISH_IRREGULAR = new Map(
  Object.entries({
    led: 'lead',
    built: 'build',
    wrote: 'write',
    written: 'write',
    won: 'win',
    ran: 'run',
    began: 'begin',
    begun: 'begin',
    born: 'bear',
    bore: 'bear',
    made: 'make',
    found: 'find',
    founded: 'found',
    gave: 'give',
    given: 'give',
    took: 'take',
    taken: 'take',
    held: 'hold',
    sold: 'sell',
    bought: 'buy',
    brought: 'bring',
    thought: 'think',
    taught: 'teach',
    caught: 'catch',
    fought: 'fight',
    sought: 'seek',
    became: 'become',
    came: 'come',
    went: 'go',
    gone: 'go',
    saw: 'see',
    seen: 'see',
    knew: 'know',
    known: 'know',
    grew: 'grow',
    grown: 'grow',
    threw: 'throw',
    flew: 'fly',
    flown: 'fly',
    drew: 'draw',
    drawn: 'draw',
    chose: 'choose',
    chosen: 'choose',
    spoke: 'speak',
    spoken: 'speak',
    broke: 'break',
    broken: 'break',
    rose: 'rise',
    risen: 'rise',
    fell: 'fall',
    fallen: 'fall',
    left: 'leave',
    lost: 'lose',
    met: 'meet',
    paid: 'pay',
    said: 'say',
    sent: 'send',
    spent: 'spend',
    stood: 'stand',
    told: 'tell',
    understood: 'understand',
    kept: 'keep',
    slept: 'sleep',
    felt: 'feel',
    dealt: 'deal',
    meant: 'mean',
    shot: 'shoot',
    sang: 'sing',
    sung: 'sing',
    swam: 'swim',
    drove: 'drive',
    driven: 'drive',
    rode: 'ride',
    ridden: 'ride',
    hid: 'hide',
    hidden: 'hide',
    ate: 'eat',
    eaten: 'eat',
    forgot: 'forget',
    forgotten: 'forget',
    froze: 'freeze',
    frozen: 'freeze',
    stole: 'steal',
    stolen: 'steal',
    struck: 'strike',
    hung: 'hang',
    fed: 'feed',
    fled: 'flee',
    bred: 'breed',
    shone: 'shine',
    wore: 'wear',
    worn: 'wear',
    tore: 'tear',
    torn: 'tear',
    woke: 'wake',
    woken: 'wake',
    lent: 'lend',
    bent: 'bend',
    bound: 'bind',
    wound: 'wind',
  }),
);

const TOKEN_PATTERN = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

export class Tokenizer {
  readonly language: string;
  private readonly stemmer: { stem(word: string): string } | null;
  private readonly stopWords: Set<string>;
  private readonly irregular: Map<string, string>;
  private readonly cache = new Map<string, string>();
  private readonly maxTokenLength: number;

  constructor(options: TokenizerOptions = {}) {
    this.language = options.language ?? 'english';
    this.maxTokenLength = options.maxTokenLength ?? 40;
    if (this.language === 'none') {
      this.stemmer = null;
    } else {
      if (!snowball.algorithms().includes(this.language)) {
        throw new Error(`unknown tokenizer language "${this.language}" (known: none, ${snowball.algorithms().join(', ')})`);
      }
      this.stemmer = snowball.newStemmer(this.language);
    }
    const english = this.language === 'english' || this.language === 'porter';
    this.stopWords = english ? ENGLISH_STOP_WORDS : new Set();
    this.irregular = english ? ENGLISH_IRREGULAR : new Map();
  }

  /** Stemmed index terms of a text, in order (duplicates kept: term frequency matters). */
  terms(text: string): string[] {
    const out: string[] = [];
    for (const match of text.toLowerCase().matchAll(TOKEN_PATTERN)) {
      let word = match[0];
      const apostrophe = word.search(/['’]/);
      if (apostrophe !== -1) word = word.slice(0, apostrophe);
      if (word.length > this.maxTokenLength || this.stopWords.has(word)) continue;
      out.push(this.stem(word));
    }
    return out;
  }

  stem(word: string): string {
    if (!this.stemmer) return word;
    let stem = this.cache.get(word);
    if (stem === undefined) {
      stem = this.stemmer.stem(this.irregular.get(word) ?? word);
      if (this.cache.size > 200_000) this.cache.clear();
      this.cache.set(word, stem);
    }
    return stem;
  }
}

/** Rough token count (≈ words and punctuation) used for chunk sizing; model-agnostic by design. */
export function countTokens(text: string): number {
  const matches = text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu);
  return matches ? matches.length : 0;
}
