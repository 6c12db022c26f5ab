/**
 * Deterministic synthetic English-like text for benchmarks: Zipf-distributed words from a generated
 * vocabulary, sentences of 8–24 words, paragraphs of 3–7 sentences. Not real language, but it has
 * the term-frequency shape that drives posting-list sizes and so search cost.
 */
export class SyntheticText {
  private state: number;
  readonly vocabulary: string[];
  private readonly cumulative: Float64Array;

  constructor(seed = 42, vocabularySize = 50_000) {
    this.state = seed >>> 0 || 1;
    const syllables = [
      'ka',
      'lo',
      'mi',
      'ren',
      'tor',
      'sal',
      'vin',
      'qua',
      'dre',
      'pol',
      'us',
      'ex',
      'an',
      'ter',
      'bio',
      'gen',
      'cell',
      'ment',
      'ion',
      'ly',
    ];
    const words = new Set<string>();
    while (words.size < vocabularySize) {
      const length = 1 + Math.floor(this.random() * 4);
      let word = '';
      for (let i = 0; i < length; i++) word += syllables[Math.floor(this.random() * syllables.length)];
      words.add(word);
    }
    this.vocabulary = [...words];
    this.cumulative = new Float64Array(vocabularySize);
    let sum = 0;
    for (let i = 0; i < vocabularySize; i++) {
      sum += 1 / (i + 1) ** 1.07;
      this.cumulative[i] = sum;
    }
    for (let i = 0; i < vocabularySize; i++) this.cumulative[i] /= sum;
  }

  random(): number {
    // xorshift32: fast and reproducible across runs.
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state / 0x100000000;
  }

  word(): string {
    return this.vocabulary[drawIndex(this.cumulative, this.random())];
  }

  sentence(): string {
    const count = 8 + Math.floor(this.random() * 17);
    const words = Array.from({ length: count }, () => this.word());
    words[0] = words[0][0].toUpperCase() + words[0].slice(1);
    return `${words.join(' ')}.`;
  }

  paragraph(): string {
    return Array.from({ length: 3 + Math.floor(this.random() * 5) }, () => this.sentence()).join(' ');
  }

  /** A query of 2–6 words, drawn from the middle of the frequency range like real keyword queries. */
  query(): string {
    const count = 2 + Math.floor(this.random() * 5);
    return Array.from({ length: count }, () => this.vocabulary[50 + Math.floor(this.random() * 5000)]).join(' ');
  }
}

/** The index a uniform draw `r` falls on in a cumulative distribution (binary search). */
function drawIndex(cumulative: Float64Array, r: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function argValue(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  if (index === -1) return fallback;
  const value = Number(process.argv[index + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

/**
 * SyntheticText with topics, as real collections have: each document is about one of `topics`
 * topics, and most of its words come from that topic's own Zipf-ranked vocabulary (the rest from
 * the global one); a query is asked about one topic. Words then co-occur the way they do in real
 * text, so vectors of related passages lie near each other — what approximate nearest-neighbour
 * indexes rely on. Without topics the vectors are nearly equidistant.
 */
export class TopicalText extends SyntheticText {
  private readonly topicWords: string[][];
  private readonly topicCumulative: Float64Array;
  private topic = 0;

  constructor(
    seed = 42,
    private readonly topics = 200,
    private readonly topicShare = 0.6,
    topicVocabulary = 2_000,
  ) {
    super(seed);
    this.topicWords = Array.from({ length: topics }, () =>
      Array.from({ length: topicVocabulary }, () => this.vocabulary[Math.floor(this.random() * this.vocabulary.length)]),
    );
    this.topicCumulative = new Float64Array(topicVocabulary);
    let sum = 0;
    for (let i = 0; i < topicVocabulary; i++) this.topicCumulative[i] = sum += 1 / (i + 1);
    for (let i = 0; i < topicVocabulary; i++) this.topicCumulative[i] /= sum;
  }

  /** Starts a document (or a query) about a topic drawn at random. */
  startDocument(): void {
    this.topic = Math.floor(this.random() * this.topics);
  }

  override word(): string {
    if (this.random() >= this.topicShare) return super.word();
    return this.topicWords[this.topic][drawIndex(this.topicCumulative, this.random())];
  }

  /** 2–6 words of one topic's vocabulary, from past its most frequent words. */
  override query(): string {
    this.startDocument();
    const count = 2 + Math.floor(this.random() * 5);
    return Array.from({ length: count }, () => this.topicWords[this.topic][20 + Math.floor(this.random() * 500)]).join(' ');
  }
}
