import { entitiesIn } from '../text/entities.ts';
import { isDemonym, isRegionName, NATIONALITY } from '../text/spans.ts';
import { splitSentences } from '../text/sentences.ts';
import type { AnswerType, CalculationSpec, ComparisonSpec, Hop, QuestionAnalysis, QuestionRule, QuestionType } from './types.ts';

export type {
  AnswerType,
  CalculationOp,
  CalculationSpec,
  ComparisonSpec,
  Hop,
  QuestionAnalysis,
  QuestionRule,
  QuestionType,
} from './types.ts';

/** The participle of a verb or of the noun for its doer: "wrote"/"writer" → "written". */
const PARTICIPLES: Record<string, string> = {
  directed: 'directed',
  director: 'directed',
  wrote: 'written',
  writer: 'written',
  author: 'written',
  founded: 'founded',
  founder: 'founded',
  created: 'created',
  creator: 'created',
  designed: 'designed',
  designer: 'designed',
  produced: 'produced',
  producer: 'produced',
  composed: 'composed',
  composer: 'composed',
  published: 'published',
  publisher: 'published',
  invented: 'invented',
  inventor: 'invented',
  developed: 'developed',
  developer: 'developed',
  built: 'built',
  builder: 'built',
  owns: 'owned',
  owned: 'owned',
  owner: 'owned',
  painted: 'painted',
  illustrated: 'illustrated',
  illustrator: 'illustrated',
  manufactured: 'manufactured',
  manufacturer: 'manufactured',
  distributed: 'distributed',
  distributor: 'distributed',
  architect: 'designed',
  recorded: 'recorded',
  performed: 'performed',
  sang: 'sung',
  formed: 'formed',
  established: 'established',
  discovered: 'discovered',
  discoverer: 'discovered',
  narrated: 'narrated',
  narrator: 'narrated',
  edited: 'edited',
  editor: 'edited',
  translated: 'translated',
  translator: 'translated',
  coined: 'coined',
  organized: 'organized',
  organizer: 'organized',
};

/** "founder" → "founded": how a passage says the role a question names (undefined for other words). */
export function participleOf(word: string): string | undefined {
  return PARTICIPLES[word.toLowerCase()];
}

function agentAsked(question: string): string | undefined {
  const verbs = Object.keys(PARTICIPLES).join('|');
  const asked =
    new RegExp(
      `^(?:who|which\\s+(?:[\\w-]+\\s+){0,2}?[\\w-]+)\\s+(?:(?:originally|first|also|has|had|have|actually)\\s+)?(${verbs})\\b`,
      'i',
    ).exec(question)?.[1] ??
    new RegExp(`^(?:who|which\\s+[\\w-]+|what\\s+[\\w-]+)\\s+(?:is|was|were|are)\\s+the\\s+(?:[\\w-]+\\s+)?(${verbs})\\s+of\\b`, 'i').exec(
      question,
    )?.[1] ??
    // "… was formed by which company?"
    new RegExp(`\\b(${verbs})\\s+by\\s+(?:which|what)\\s+[\\w-]+(?:\\s+[\\w-]+)?\\s*\\??\\s*$`, 'i').exec(question)?.[1];
  return asked ? PARTICIPLES[asked.toLowerCase()] : undefined;
}

const NUMBER_WORDS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, both: 2 };
const PLACE_NOUNS =
  /^(?:seat|headquarters|venue|stadium|arena|city|town|village|country|nation|state|county|province|region|district|borough|municipality|suburb|neighbou?rhood|island|continent|river|lake|mountain|capital|place|location|area|port|parish|territory|commune|prefecture|hometown|birthplace)$/;
const PERSON_NOUNS =
  /^(?:person|man|woman|actor|actress|singer|player|author|writer|director|producer|politician|president|king|queen|founder|leader|musician|artist|composer|poet|novelist|footballer|coach|manager|scientist|physicist|chemist|businessman|businesswoman|journalist|screenwriter|philosopher|painter|rapper|comedian|guitarist|drummer|pilot|general|officer|senator|governor|minister|prime minister|chancellor|ceo|chief executive|head|lead|leads|wife|husband|son|daughter|father|mother|brother|sister|member|host|presenter|designer|architect|engineer|inventor|entrepreneur|industrialist|lawyer|judge|owner|emperor|prince|princess|duke|pope|saint|bishop|star|dancer|model|athlete|boxer|wrestler|cricketer|golfer|swimmer|cyclist|racer|driver|astronaut|economist|historian|psychologist|sociologist|anthropologist|mathematician|biologist|diplomat|ambassador|spokesperson|chef)s?$/;
/** Occupations by their form: "-ist" (novelist, pianist), "-ian" (comedian, librarian), and common agent nouns in "-ant"/"-ent". */
const OCCUPATION =
  /^(?:(?!(?:list|playlist|checklist|wishlist|twist|mist|wrist|fist|exist|assist|resist|insist|persist|consist|subsist)s?$)[a-z]{3,}ists?|(?!(?:median|meridian|guardian)s?$)[a-z]{3,}(?:ician|arian|ologian|ographer|ologist|onian|ean)s?|(?:consultant|assistant|accountant|attendant|merchant|servant|sergeant|lieutenant|student|resident|agent|correspondent|superintendent|contestant|participant|descendant|immigrant|emigrant|claimant|defendant|informant|occupant|entrant|applicant|tenant|regent|heir|heiress|nominee|trainee|employee|veteran|citizen|native|official|aide|spouse|partner|widow|widower|prodigy|protege|protégé|mentor|pupil|apprentice|disciple|tutor|teacher|professor|lecturer|researcher|explorer|sailor|soldier|warrior|knight|monk|nun|priest|rabbi|imam|missionary|activist|campaigner|lobbyist|strategist|advisor|adviser|counselor|counsellor|spy|assassin|criminal|outlaw|gangster|mobster|smuggler|pirate|personality|celebrity|socialite|magnate|tycoon|mogul|executive|chief|principal|dean|provost|rector|vicar|pastor|deacon|cardinal|archbishop|baron|baroness|count|countess|earl|marquess|viscount|emir|sultan|shah|tsar|czar|khan|chieftain|monarch|sovereign|ruler|dictator|premier|statesman|stateswoman|intern|volunteer|laureate|recipient|finalist|graduate|alumnus|alumna|congressman|congresswoman|legislator|lawmaker|delegate|representative|commissioner|mayor|alderman|sheriff|marshal|detective|inspector|constable|commander|admiral|colonel|major|captain|corporal|private)s?)$/;
const DATE_NOUNS = /^(?:year|date|day|month|decade|century|season|era|time|period|timeframe|years)$/;
const NUMBER_NOUNS =
  /^(?:number|population|amount|count|total|size|capacity|length|height|depth|width|area|price|cost|age|score|percentage|rate|distance|duration|weight|allowance|salary|budget|revenue|profit|income|fee|fees|wage|pay|limit|maximum|minimum|inhabitants|attendance|elevation|altitude|temperature|speed|value|worth|turnover|headcount|ratio|share|margin|timeout|index|rank|ranking|tally|enrollment|enrolment|circulation|viewership)$/;
const ROLE_NOUNS =
  'founder|co-founder|director|author|writer|creator|father|mother|son|daughter|wife|husband|brother|sister|owner|ceo|president|leader|head|capital|designer|producer|composer|singer|star|builder|manufacturer|developer|publisher|headquarters|home|team|company|university|school|band|group|parent company|successor|predecessor|inventor|editor|host|coach|manager|captain|mayor|governor|king|queen|chairman|architect|lyricist|narrator|illustrator|subsidiary|member|sponsor|distributor|studio|label|network|maker|playwright|screenwriter|novelist|poet|songwriter|artist|painter|sculptor|performer|vocalist|frontman|drummer|guitarist|bassist|conductor|choreographer|cinematographer|photographer|operator|presenter|anchor|commander|general|partner|spouse|child|parent|sibling|proprietor|landlord|employer|teacher|mentor|student|pupil|rival|opponent|heir|namesake|engineer|investor|backer|chairperson|chair|principal|dean|rector|pastor|bishop|abbot|premier|chancellor';
/** The role nouns, also capitalised ("The Leader of <party>"). */
const BOTH_CASES = ROLE_NOUNS.split('|')
  .map((role) => `[${role[0]}${role[0].toUpperCase()}]${role.slice(1)}`)
  .join('|');
const COMPARATIVE_MAX =
  /\b(?:more|most|larger|largest|bigger|biggest|greater|greatest|higher|highest|longer|longest|taller|tallest|heavier|faster|older|oldest|wider|deeper|deepest|earlier|earliest|first)\b/;
const COMPARATIVE_MIN =
  /\b(?:fewer|less|least|smaller|smallest|lower|lowest|shorter|shortest|lighter|slower|younger|youngest|narrower|shallower|later|latest|last|newer|newest|more recent(?:ly)?)\b/;

const AUXILIARIES = /^(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|may|might|must)$/i;

function clean(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/^[\s,;:]+|[\s?.!,;:]+$/g, '')
    .trim();
}

function stripArticle(text: string): string {
  return text.replace(/^(?:the|a|an)\s+/i, '').trim();
}

const PREPOSITIONS =
  /^(?:of|in|on|at|for|from|by|with|to|into|onto|during|under|over|since|until|about|after|before|between|through|than|as|like|near|besides|aside|among|against|within|without|across|around|behind|beyond|per|via|the|a|an|this|that|these|those)$/i;
const VERBISH =
  /^(?:happens?|happened|causes?|caused|makes?|made|means?|meant|controls?|determines?|decides?|defines?|returns?|returned|raises?|raised|goes|went|occurs?|occurred|changes?|changed|affects?|needs?|counts?|matters?|remains?|exists?|works?|lets?|allows?|fly|flies|flew|plays?|hosts?|holds?|leads?|owns?|uses?|contains?|includes?|features?|produces?|sells?|runs?|won|wins?|appears?|belongs?|lies|lie|sits?|serves?|competes?|performs?|operates?|consists?|represents?|refers?|originates?|depicts?|describes?|portrays?|tells?|follows?|focuses?|lasts?|begins?|publishes?|sings?|sang|writes?|wrote|directs?|manages?|teaches?|gets?|gives?|gave|took|kept|brings?|brought|comes?|came|becomes?|became|seems?|provides?|requires?|involves?|commemorates?|celebrates?|connects?|joins?|joined|lost|loses?|faced|met|reached)$/i;
/** Irregular past participles: like "-ed" words, they end the noun phrase asked for ("series told in the first person"). */
const IRREGULAR_PARTICIPLES =
  /^(?:told|known|written|made|given|seen|taken|born|built|sold|held|won|begun|drawn|grown|shown|sung|spoken|thrown|worn|chosen|driven|ridden|eaten|fallen|forgotten|hidden|stolen|broken|bought|brought|caught|taught|thought|fought|found|kept|left|lost|meant|met|paid|put|read|run|said|sent|set|shot|spent|stood|struck|understood|led|fed|bred|cast|hit|hurt|laid|lit|dug|hung|sat|slept|spun|swept|wound|become|come|done|gone|beaten|bitten|blown|flown|forbidden|frozen|risen|shaken|sworn|woken|overseen|undertaken)$/i;
/** Adjectives ending in -ed that name a kind, not an action ("based" is not one: "based in"). */
const ED_ADJECTIVES =
  /^(?:animated|armed|united|red|bed|supernatural|advanced|detailed|limited|listed|named|related|renewed|talented|married|retired|noted|acclaimed|celebrated|distinguished|registered|unnamed|wicked|sacred|naked|rugged|crooked|beloved|learned|aged|skilled|licensed|certified|integrated|automated|rated|televised|unscripted|unified)$/i;

/**
 * The noun phrase the question asks for, right after "what"/"which", past "type of" and "the … of"
 * (cases: question.test.ts, "the noun asked for").
 */
function whPhrase(question: string, word: string): string | undefined {
  const q = question.replace(/\bwhat['’]s\b/gi, 'what is').replace(new RegExp(`\\b(?!${word}\\b)(?:what|which)\\b`, 'gi'), '·');
  const typeOf =
    /\b(?:what|which)\s+(?:type|kind|sort|form|genre|brand|style|piece|variety)s?\s+of\s+(?:the\s+|a\s+|an\s+)?([\w'’-]+(?:\s+[\w'’-]+){0,2}?)(?=\s+(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\b|\s*[?,]|\s*$|\s+(?:of|in|on|at|for|from|by|with|that|which|who)\b)/i.exec(
      q,
    );
  if (typeOf) return typeOf[1];
  // "what is/was the X of …" / "what is the name of the X …" / "what was the X's Y?"
  const isThe =
    /\b(?:what|which)\s+(?:is|was|are|were)\s+(?:the\s+|a\s+|an\s+)?((?:[\w'’-]+\s+){0,4}?[\w'’-]+?)(?=\s+(?:of|for|in|on|at|that|which|who|whose|to|from|with|by|behind|between|when|where|if|after|before|used|given|called|made)\b|\s*[?,.]|\s*$)/i.exec(
      q,
    );
  if (isThe) {
    let phrase = isThe[1];
    const nameOf = /^(?:name|title|names|titles)$/i.test(phrase)
      ? /\b(?:name|title)s?(?:\s+(?:from|in|between|during|until|since|before|after)\s+\d{4}(?:\s*(?:to|and|until|-|–)\s*\d{4})?)?\s+(?:of|for)\s+(?:the\s+|a\s+|an\s+)?((?:[\w'’-]+\s+){0,3}?[\w'’-]+?)(?=\s+(?:of|in|on|at|for|from|by|with|that|which|who|whose|to|is|was|starring|featuring|written|directed|the|a|an|his|her|their|its)\b|\s*[?,]|\s*$)/i.exec(
          q,
        )?.[1]
      : undefined;
    phrase = nameOf ?? phrase;
    const firstWord = phrase.split(/\s+/)[0];
    if (!AUXILIARIES.test(firstWord) && !PREPOSITIONS.test(firstWord) && !/^[a-z]+ed$/i.test(firstWord)) return phrase;
  }
  const match = /\b(?:what|which|whose)\s+(?!(?:of|one)\b)((?:[\w'’-]+\s*){1,8})/i.exec(q);
  if (!match) return undefined;
  const words: string[] = [];
  const all = match[1].trim().split(/\s+/);
  for (const [index, word] of all.entries()) {
    const bare = word.replace(/[?,.;:!]+$/, '');
    // "attribute gives the next …": a word in -s before an article or pronoun is the verb
    if (
      words.length > 0 &&
      /[^s]s$/.test(bare) &&
      /^(?:the|a|an|to|me|you|it|them|us|him|her|this|that|these|those|its|their|his|my|your|our|up|out|back|off)$/i.test(
        all[index + 1] ?? '',
      )
    )
      break;
    if (
      AUXILIARIES.test(bare) ||
      (PREPOSITIONS.test(bare) && words.length > 0) ||
      (/^(?:that|which|who|whom|whose|where|when|and|or)$/i.test(bare) && words.length > 0)
    )
      break;
    if (words.length > 0 && /^[a-z]+ed$/.test(bare) && !ED_ADJECTIVES.test(bare)) break; // "director hosted"
    if (words.length > 0 && IRREGULAR_PARTICIPLES.test(bare)) break; // "series told in the first person"
    // a lower-case word in -s before a name is the verb ("Which film stars <name> …")
    if (words.length > 0 && /^[a-z]+[^s]s$/.test(bare) && /^["“]?\p{Lu}/u.test(all[index + 1] ?? '')) break;
    if (words.length > 0 && VERBISH.test(bare)) break;
    words.push(bare);
    if (bare !== word) break; // punctuation ends the phrase
  }
  if (words.length === 0 || PREPOSITIONS.test(words[0]) || AUXILIARIES.test(words[0]) || (words.length === 1 && VERBISH.test(words[0])))
    return undefined;
  // "and" joins nouns of one phrase ("actor and dancer"): kept by the loop only when before any stop
  return words.join(' ');
}

/** The interrogative that decides the question type: the first wh-word that is not a relative pronoun. */
function interrogative(q: string): string | undefined {
  const first = /^(what|which|who|whom|whose|when|where|why|how)\b/.exec(q)?.[1];
  if (first) return first;
  if (/\bhow (?:many|much)\b/.test(q)) return 'how';
  if (/\b(?:what|which)\b/.test(q)) return /\bwhich\b/.test(q) && !/\bwhat\b/.test(q) ? 'which' : 'what';
  // "formed by who?", "ended when ?", "born where": at the end or after a preposition
  const late = /\b(who|whom|when|where)\s*\??\s*$/.exec(q) ?? /\b(?:by|of|from|in|at|for|with|to)\s+(who|whom|when|where)\b/.exec(q);
  if (late) return late[1];
  if (/\bhow (?:long|old|tall|high|deep|far|big|large|heavy|wide|fast|often)\b/.test(q)) return 'how';
  return undefined;
}

/** A plural noun phrase: "optional dependencies", "exception classes" (not "address", "status", "series"). */
function isPlural(phrase: string): boolean {
  const head = headOf(phrase);
  return (
    /[^su]s$|ies$/.test(head) &&
    !/(?:ss|us|is|series|species|news|physics|mathematics|politics|economics|athletics|headquarters|means)$/.test(head) &&
    head.length > 3
  );
}

function headOf(phrase: string): string {
  const words = phrase.toLowerCase().split(/\s+/);
  return words[words.length - 1];
}

export function answerTypeOfNoun(noun: string): AnswerType | undefined {
  const words = noun.toLowerCase().split(/\s+/);
  // the head noun, skipping a trailing adverb ("daily meal allowance abroad")
  const head =
    words.length > 1 &&
    /^(?:abroad|overseas|worldwide|today|now|together|there|here|ago|originally|first|last|currently)$/.test(words[words.length - 1])
      ? words[words.length - 2]
      : headOf(noun);
  if (PLACE_NOUNS.test(head)) return 'place';
  if (/^(?:year|years|decade|century)$/.test(head)) return 'year';
  if (DATE_NOUNS.test(head)) return 'date';
  if (PERSON_NOUNS.test(head) || PERSON_NOUNS.test(noun.toLowerCase()) || OCCUPATION.test(head)) return 'person';
  if (NUMBER_NOUNS.test(head)) return 'number';
  return undefined;
}

/** "Which is taller …?" compares heights: the noun and the adjective a passage may use for the measure. */
const MEASURES: Array<[RegExp, string]> = [
  [/\b(?:taller|tallest)\b/, 'height tall'],
  [/\b(?:higher|highest)\b/, 'height high'],
  [/\b(?:longer|longest)\b/, 'length long'],
  [/\b(?:deeper|deepest)\b/, 'depth deep'],
  [/\b(?:wider|widest)\b/, 'width wide'],
  [/\b(?:heavier|heaviest)\b/, 'weight heavy'],
  [/\b(?:larger|largest|bigger|biggest)\b/, 'area size'],
];

function measureOf(question: string): string | undefined {
  return MEASURES.find(([pattern]) => pattern.test(question))?.[1];
}

const COMPARATIVES =
  'older|younger|elder|taller|shorter|larger|smaller|bigger|longer|earlier|later|higher|lower|greater|wider|deeper|heavier|first';

/**
 * The question sets its options side by side (lower-cased): "…, A or B?", "Are both …", "… the same …",
 * "Between A and B, …", "Which of A and B …", "A and B, which …", "Do A and B share a …", "the younger of …".
 */
function setsOptionsSideBySide(q: string): boolean {
  return (
    /\bor\b|\bboth\b|\bsame\b|\bthan\b|\bbefore\b|\bafter\b|^(?:between|of)\b|^(?:which|who) of\b|\bshare(?:d)?\s+(?:a|an|the)\b/.test(q) ||
    /^[^,]+ and [^,]+, (?:which|who)\b/.test(q) ||
    new RegExp(`\\bthe (?:${COMPARATIVES}) (?:one )?of\\b`).test(q)
  );
}

/** The options a comparison offers: "…, A or B?", "A or B, which …", "both A and B", "A and B both". */
function candidatesIn(question: string): string[] {
  const q = question.replace(/\?+\s*$/, '');
  // "Between A and B, who …" / "Of A and B, which …" / "A or B, who …" / "A and B, which …" / "Which of A and B …" /
  // "Which of the two bands, A or B, …" (cases: question.test.ts, "options and what compares them")
  const lead =
    /^(?:between|of)\s+(?:the\s+)?(.+?)\s+(?:and|or)\s+(?:the\s+)?(.+?),\s*(?:which|who|what|whose)\b/i.exec(q) ??
    /^(?:the\s+)?(\p{Lu}.*?)\s+(?:or|and)\s+(?:the\s+)?(\p{Lu}.*?),\s*(?:which|who|what|whose)\b/u.exec(q) ??
    /^(?:which|who)\s+of\s+the\s+(?:two|both)\b[^,]*,\s*(?:the\s+)?(.+?)\s+(?:or|and)\s+(?:the\s+)?(.+?),/i.exec(q) ??
    new RegExp(
      `^(?:[Ww]hich|[Ww]ho)\\s+of\\s+(?!the\\s+(?:two|both)\\b)(?:the\\s+)?(\\p{Lu}.*?)\\s+(?:or|and)\\s+(?:the\\s+)?(\\p{Lu}.*?)\\s+(?:is|was|are|were|has|had|have|did|does|do|came|comes|${COMPARATIVES})\\b`,
      'u',
    ).exec(q);
  if (lead) return [clean(lead[1]), clean(lead[2])];
  // "Who is the younger of A and B?"
  const ofBoth = new RegExp(
    `\\bthe\\s+(?:${COMPARATIVES})\\s+(?:one\\s+)?of\\s+(?:the\\s+)?(.+?)\\s+(?:and|or)\\s+(?:the\\s+)?(.+)$`,
    'i',
  ).exec(q);
  if (ofBoth) return [clean(ofBoth[1]), clean(ofBoth[2])];
  // "Which county is larger, A, Region or B, Region?": after the asking clause's comma, each option may
  // hold a comma of its own
  const placed = optionsWithRegions(q);
  if (placed) return placed;
  // "…, the Coastal Team or the Harbour Systems Team" / "Who is older, A or B" / "in 2023 or in 2024"
  const tail =
    /(?:,|:)\s*((?:(?!,).)+?)\s+or\s+((?:(?!,).)+)$/i.exec(q) ??
    /(?:,|:|\bbetween)\s*((?:(?!,).)+?)\s+(?:or|and)\s+((?:(?!,).)+)$/i.exec(q);
  if (tail && /\bor\b|\bbetween\b/i.test(q.slice(tail.index)))
    return [stripArticle(clean(tail[1])), stripArticle(clean(tail[2]))].map((c) => c.replace(/^(?:in|at|on|from)\s+/i, ''));
  const years = /\b(?:in|at|for|during)?\s*(\d{4})\s+or\s+(?:in|at|for|during)?\s*(\d{4})\b/.exec(q);
  if (years) return [years[1], years[2]];
  const both =
    /\bboth\s+(.+?)\s+and\s+(.+?)(?=\s+(?:a|an|the|of|from|in|were|are|have|had|located|based|known|considered|members?|types?|kinds?|part)\b|$)/i.exec(
      q,
    );
  if (both) return [clean(both[1]), clean(both[2])].map(stripArticle).map(nameOnly).map(leadingNounless);
  const pair =
    /^(?:is|are|was|were|do|does|did|have|has|had|can|could)\s+(.+?)\s+and\s+(.+?)\s+(?:both|each|the same|of the same|from the same|in the same|located|considered|members|part|share|shared)\b/i.exec(
      q,
    );
  if (pair) return [clean(pair[1]), clean(pair[2])].map(stripArticle).map(nameOnly).map(leadingNounless);
  // "Is the population of A greater than that of B?"
  const thatOf =
    /^(?:is|was|are|were)\s+the\s+(?:[\w-]+\s+){0,2}?[\w-]+\s+of\s+(?:the\s+)?(.+?)\s+(?:greater|larger|higher|bigger|smaller|lower|less|more|fewer)\s+than\s+(?:that|those)\s+of\s+(?:the\s+)?(.+)$/i.exec(
      q,
    );
  if (thatOf) return [clean(thatOf[1]), clean(thatOf[2])];
  // "Is A older than B?" / "Was A released before B?"
  const than =
    /^(?:is|are|was|were|do|does|did|has|have|had)\s+(?:the\s+)?(\p{Lu}.*?|["“].+?["”])\s+(?:(?:born|founded|established|formed|released|published|created|opened|built|launched|started|die|died|have|has|had|\p{Ll}+)\s+)?(?:older|younger|taller|shorter|larger|smaller|bigger|longer|earlier|later|higher|lower|greater|wider|deeper|heavier|(?:more|fewer|less)\s+[\w-]+(?:\s+[\w-]+)?|before|after)\s+(?:than\s+)?(?:the\s+)?(\p{Lu}.*|["“].+)$/u.exec(
      q.replace(/^\p{Lu}/u, (c) => c.toLowerCase()),
    );
  if (than) return [clean(than[1]), clean(than[2])];
  // "Is A or B higher?" / "Was A or B born first?"
  const either =
    /^(?:is|are|was|were|do|does|did|has|have|had)\s+(?:the\s+)?(\p{Lu}.*?)\s+or\s+(?:the\s+)?(\p{Lu}.*?)\s+(?:older|younger|taller|shorter|larger|smaller|bigger|longer|earlier|later|higher|lower|greater|wider|deeper|heavier|more|less|fewer|born|founded|established|formed|released|published|created|first)\b/u.exec(
      q.replace(/^\p{Lu}/u, (c) => c.toLowerCase()),
    );
  if (either) return [clean(either[1]), clean(either[2])];
  // "who is younger A or B" (no comma); the names may hold "for", "of", "the" … and a comparative ("First for …")
  const bare =
    /\b(?:older|younger|taller|shorter|larger|smaller|bigger|longer|earlier|later|first|more|less|higher|lower|greater)\s+(?:,\s*)?((?:[A-Z][\w.'’-]*\s*)(?:(?:of|for|the|and|de|in|on|to|&)\s+|[A-Z\d][\w.'’-]*\s*)*?)\s+or\s+((?:(?:the\s+)?[A-Z][\w.'’-]*\s*)(?:(?:of|for|the|and|de|in|on|to|&)\s+|[A-Z\d][\w.'’-]*\s*)*)$/.exec(
      q,
    );
  if (bare) return [clean(bare[1]), stripArticle(clean(bare[2]))];
  return [];
}

/**
 * "Which county is larger, A, Region or B, Region?", "…, A or B, Region?": options that carry their
 * region after a comma. The second option is all after "or"; the first takes as many comma pieces
 * before "or" as the second has (never the asking clause), or two when its last piece is a region, so
 * a place named in the asking clause ("Who was born in Town, Region, A or B?") is no part of A.
 */
function optionsWithRegions(q: string): [string, string] | undefined {
  if (!/^(?:which|who|what|whose)\b/i.test(q)) return undefined;
  const at = q.lastIndexOf(' or ');
  if (at < 0) return undefined;
  const [before, second] = [q.slice(0, at), q.slice(at + 4).trim()];
  const pieces = before.split(/,\s*/);
  if (pieces.length < 2) return undefined;
  const regioned =
    (second.includes(',') || isRegionName(pieces[pieces.length - 1])) &&
    pieces.length >= 3 &&
    !/^(?:which|who|what|whose)\b/i.test(pieces[pieces.length - 2]);
  const first = regioned ? pieces.slice(-2).join(', ') : pieces[pieces.length - 1];
  const named = (option: string) =>
    /^(?:the\s+)?[\p{Lu}"“\d]/u.test(option) && option.split(/,\s*/).every((part) => /^(?:the\s+)?[\p{Lu}"“\d]/u.test(part));
  if (!(first.includes(',') || second.includes(',')) || !named(first) || !named(second)) return undefined;
  return [stripArticle(clean(first)), stripArticle(clean(second))];
}

/**
 * A named option without the words of the question that trail it ("… and B genera", "… B American
 * musicians" → "B"). Lowercase options stay as they are.
 */
function nameOnly(option: string): string {
  if (!/^[\p{Lu}\d"“]/u.test(option)) return option;
  const words = option.split(/\s+/);
  // trailing lowercase words and demonyms
  while (words.length > 1 && (/^\p{Ll}/u.test(words[words.length - 1]) || NATIONALITY.test(words[words.length - 1]))) words.pop();
  return words.join(' ');
}

/** A common noun before a name is the question's description of it ("drinks B" → "B"). */
function leadingNounless(option: string): string {
  const words = option.split(/\s+/);
  if (!words.some((w) => /^\p{Lu}/u.test(w))) return option;
  while (words.length > 1 && /^\p{Ll}+$/u.test(words[0])) words.shift();
  return words.join(' ');
}

/** "<Subject> is/was a <relation> by/at/of … a <described> that/who/born … <rest>" */
const SUBJECT_HOP =
  /^(?:In \d{4},?\s+)?(?!(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|in|on|at|for|from|during)\b)((?:"[^"]+"|“[^”]+”|[\p{L}\d])[^,?]*?)\s+(is|was|are|were|has been|had been)\s+(?:an?\s+|the\s+)?((?:[\w-]+\s+){0,4}?[\w-]+)\s+(by|at|of|for|in|from|with|under)\s+(an?\s+(?:[\w-]+\s+){0,2}?[\w-]+)\s+((?:that|who|which|whose|born|based|located|where)\b.*)$/iu;

/** After the opening name: "<does something with> a <noun> that/who … <asks>". */
const THEN_DESCRIBED =
  /^\s+([a-z][\w'’-]*\s+(?:[\w'’.-]+\s+){0,13}?)(an?\s+(?:[\w-]+\s+){0,2}?[\w-]+)\s+((?:that|who|which|whose|born|based|located|founded|formed|headquartered)\s+.*)$/u;
const ASKS = /\b(?:what|which|who|whom|whose|when|where|how|why)\b/i;

/**
 * "<Name> is in a county that has … how many …?": the question's opening name leads, by what it is
 * said to do, to the thing the rest asks about.
 */
function describedBySubject(q: string): Hop | undefined {
  const body = q.replace(/^In \d{4},?\s+/, '');
  const name = entitiesIn(body)[0];
  if (!name) return undefined;
  // "The 1989 <team> season was …": the subject with its year and head noun is the passage's name
  const opening = new RegExp(
    `^(?:[Tt]he\\s+)?(?:\\d{4}(?:[–-]\\d{2,4})?\\s+)?["“]?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["”]?(?:\\s+(?!(?:is|was|are|were|has|had)\\b)[a-z][\\w-]*){0,2}(?=\\s+(?:is|was|are|were|has|had|[a-z]+ed)\\b)|^["“]?${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["”]?`,
  ).exec(body)?.[0];
  if (!opening) return undefined;
  const entity = opening.replace(/^(?:the\s+)/i, '').replace(/["“”]/g, '');
  const match = THEN_DESCRIBED.exec(body.slice(opening.length));
  if (!match) return undefined;
  const [, verbPhrase, described, clause] = match;
  if (!ASKS.test(clause) || ASKS.test(verbPhrase)) return undefined;
  const relation = verbPhrase.trim();
  return { phrase: described.replace(/^an?\s+/i, 'the '), relation: relation.toLowerCase(), entity, rest: `{} ${clause}`, terminal: false };
}

/**
 * "the coach who recruited <name> coached …": a past-tense verb after the clause's name is the
 * sentence's own verb, so the relative clause ends before it (not before a participle with "by":
 * "… in <film> directed by …").
 */
function clauseEndingAtVerb(match: RegExpMatchArray): RegExpMatchArray {
  const verb = /^(.*?\p{Lu}[\w.'’&-]*)\s+[a-z]+ed\s+(?!by\b)\S/u.exec(match[3]);
  if (!verb) return match;
  const cut = match[0].length - match[3].length + verb[1].length;
  const shorter = [match[0].slice(0, cut), match[1], match[2], verb[1]] as unknown as RegExpMatchArray;
  return Object.assign(shorter, { index: match.index, input: match.input });
}

/**
 * "the author of the Norwegian novel about … <name> was born …": a demonym is no name to start from,
 * so the hop runs on to the first name before the clause's verb.
 */
function throughDemonym(match: RegExpMatchArray, q: string): RegExpMatchArray {
  if (!isDemonym(match[2].replace(/^the\s+/i, ''))) return match;
  const after = q.slice(match.index! + match[0].length);
  const name =
    /^((?:\s+(?!(?:is|was|are|were|has|had|have|did|does|do)\b)[\w'’-]+){1,10}?\s+)((?:[\p{Lu}][\w.'’&-]*)(?:\s+(?:of|the|and|de|&|[\p{Lu}\d][\w.'’&-]*))*)/u.exec(
      after,
    );
  if (!name || /[,?]/.test(name[1]) || isDemonym(name[2])) return match;
  const longer = [match[0] + name[0], match[1], match[2] + name[0]] as unknown as RegExpMatchArray;
  return Object.assign(longer, { index: match.index, input: match.input });
}

const PREPOSITION_END = /\s(?:in|at|on|from|for|with|by|of|to|under|near|into|through|during|against|behind|beside|between|after|before)$/i;

/**
 * "the city in which <name> is located?": after "in which" (a preposition before the relative word)
 * the verb that closes the question is the clause's own.
 */
function clauseWithItsVerb(match: RegExpMatchArray, q: string): RegExpMatchArray {
  if (!PREPOSITION_END.test(match[1])) return match;
  const verb =
    /^\s+(?:(?:is|was|are|were|has been|had been)\s+)?(?:[a-z]+ed|based|located|born|situated|found|held|built|set|made|run|kept|shot|seen|won|sold|written|sung|spoken|grown)(?=\s*(?:\?|,|$))/.exec(
      q.slice(match.index! + match[0].length),
    );
  if (!verb) return match;
  const longer = [match[0] + verb[0], match[1], match[2], match[3] + verb[0]] as unknown as RegExpMatchArray;
  return Object.assign(longer, { index: match.index, input: match.input });
}

/** The hops of a multi-hop question, innermost first (cases: question.test.ts, "multi-hop chains"). */
function chainIn(question: string): Hop[] {
  const hops: Hop[] = [];
  const q = question.replace(/\s+/g, ' ').trim();
  const patterns: RegExp[] = [
    // the founder of <name> / the director of the romantic comedy "<title>" / the star of the 1945 film noir <title>
    new RegExp(
      `\\b(?:[Tt]he|[Aa]n?|[Ii]ts|[Hh]is|[Hh]er|[Tt]heir)\\s+((?:[\\w-]+\\s+){0,2}?(?:${BOTH_CASES}))\\s+of\\s+((?:the\\s+)?(?:\\d{4}\\s+)?(?:[a-z][\\w-]*\\s+){0,3}?(?:"[^"]+"|“[^”]+”|(?:[\\p{Lu}\\d][\\w.'’&-]*)(?:\\s+(?:of|the|and|de|&|for(?=\\s+\\p{Lu})|[\\p{Lu}\\d][\\w.'’&-]*))*))`,
      'gu',
    ),
    // the team that built <name> / the woman who portrayed <name> in the film <title>
    /\b(?:the|a|an)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+(that|which|who|whose|where)\s+((?:(?!\b(?:is|was|are|were|has|have|did|does)\b\s+(?:based|located|born|known)\b)[^?,])+?)(?=\s+(?:born|based|located|work|works|held|hold|play|played|live|lived|die|died|founded|is|was|are|were|have|has|had|did|does|do)\b[^?]*\?|\?|,|$)/gi,
    // the company founded by <name>
    /\b(?:the|a|an)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+((?:founded|created|written|directed|produced|built|designed|owned|led|developed|published|composed|invented|formed|started|established|run|managed|coached|hosted|made)\s+by\s+(?:"[^"]+"|(?:the\s+)?(?:[\p{Lu}\d][\w.'’&-]*)(?:\s+(?:of|the|and|de|&|[\p{Lu}\d][\w.'’&-]*))*))/gu,
    // the county containing <name> / the band including <name> (whose own passage names what holds it)
    /\b(?:the|a|an)\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+((?:containing|including|owning|housing|employing|comprising|encompassing|surrounding|bordering|overlooking)\s+(?:"[^"]+"|(?:the\s+)?(?:[\p{Lu}\d][\w.'’&-]*)(?:\s+(?:of|the|and|de|&|[\p{Lu}\d][\w.'’&-]*))*))/gu,
  ];
  for (const [index, pattern] of patterns.entries()) {
    for (const found of q.matchAll(pattern)) {
      const match = index === 1 ? clauseWithItsVerb(clauseEndingAtVerb(found), q) : index === 0 ? throughDemonym(found, q) : found;
      const phrase = match[0].replace(/^(?:its|his|her|their)\s+/i, 'the ');
      const relation =
        index === 0
          ? match[1].toLowerCase()
          : index === 1
            ? `${match[1].toLowerCase()} ${match[2].toLowerCase()} ${match[3]}`
            : `${match[1].toLowerCase()} ${match[2]}`;
      const target = index === 0 ? match[2] : index === 1 ? match[3] : match[2].replace(/^\S+\s+(?:by\s+)?/, '');
      // "<owner>'s single <title>": the owner describes the thing named after it, which the hop starts from
      const named = entitiesIn(target).filter((e) => target.includes(e) && !isDemonym(e));
      const owned = named.findIndex((e) => new RegExp(`${e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['’]s\\s`).test(target));
      const entity = (owned >= 0 ? named[owned + 1] : undefined) ?? named[0] ?? /["“]([^"”]+)["”]/.exec(target)?.[1];
      if (index === 1 && !entity) continue; // a relative clause with no name in it is not a hop we can follow
      // "… served under which <Title Words>?": a preposition's "which" that ends the question is what it
      // asks, not a relative clause
      if (
        index === 1 &&
        PREPOSITION_END.test(found[1]) &&
        /^(?:\p{Lu}[\w.'’-]*\s*|(?:of|the|and|for)\s+)+$/u.test(found[3]) &&
        /^\s*\??\s*$/.test(q.slice(found.index! + found[0].length))
      )
        continue;
      if (hops.some((h) => h.phrase.includes(phrase) || phrase.includes(h.phrase))) continue;
      const rest = q.replace(match[0], '{}');
      // "Who was {}?", and "Who was {} and who died in 2007?": the hop's result is the answer
      const terminal =
        /^(?:who|what|which)\s+(?:is|was|are|were)\s+\{\}(?:\s*,?\s+(?:and|who|that|which)\s+(?:who|that|which|also)?\b[^{}]*)?\s*\??$/i.test(
          rest,
        ) || /^(?:name|identify)\s+\{\}/i.test(rest);
      hops.push({ phrase: match[0], relation, ...(entity ? { entity } : {}), rest, terminal });
    }
  }
  // "<Title> is a play by a playwright born in which year?": the subject leads, by what it is said to
  // be, to the one the rest of the question asks about.
  const subject = SUBJECT_HOP.exec(q);
  if (subject && !hops.some((h) => !h.terminal && h.entity)) {
    const [, entity, verb, relation, preposition, described, clause] = subject;
    const rest = `${entity} ${verb} ${relation} ${preposition} {} ${clause}`;
    hops.push({
      phrase: described.replace(/^an?\s+/i, 'the '),
      relation: relation.toLowerCase(),
      entity,
      rest,
      terminal: !/\b(?:what|which|who|whom|whose|when|where|how|why)\b/i.test(clause.replace(/^(?:that|who|which|whose)\b/i, '')),
    });
  }
  if (!hops.some((h) => !h.terminal && h.entity)) {
    const described = describedBySubject(q);
    if (described && !hops.some((h) => h.phrase === described.phrase)) hops.push(described);
  }
  return hops;
}

function calculationIn(question: string, years: string[], unit: string | undefined): CalculationSpec | undefined {
  const q = question.toLowerCase();
  const expectedWord = /\b(?:the|all|these)\s+(two|three|four|five|six|seven|eight|nine|ten|both)\b/.exec(q)?.[1];
  const expected = expectedWord ? NUMBER_WORDS[expectedWord] : undefined;
  // X as a share / percentage / proportion / fraction of Y; ratio of X to Y; what percentage of Y is X
  let m =
    /(?:what|how (?:much|big|large)) (?:was|is|were|are) (?:the )?(.+?) (?:in (\d{4}) )?as an? (?:share|percentage|proportion|fraction|percent) of (?:the )?(.+?)(?: in (\d{4}))?\??$/.exec(
      q,
    );
  if (m) return { op: 'percentage', quantity: m[1], base: m[3], years: years, ...(unit ? { unit } : {}) };
  m =
    /(?:what|which) (?:share|percentage|proportion|fraction|percent) of (?:the )?(.+?) (?:was|is|were|are|did|does|came from|went to) (?:the )?(.+?)\??$/.exec(
      q,
    );
  if (m) return { op: 'percentage', quantity: m[2], base: m[1], years };
  m = /\bratio (?:of|between) (?:the )?(.+?) (?:to|and) (?:the )?(.+?)(?: in (\d{4}))?\??$/.exec(q);
  if (m) return { op: 'ratio', quantity: m[1], base: m[2], years };
  m =
    /\b(?:by )?(?:what|how much|how many) (?:percent|percentage|per cent)(?: points?)? (?:did|has|have|does|do|was|is)? ?(?:the )?(.+?) (?:grow|grew|increase|increased|rise|rose|fall|fell|drop|dropped|decline|declined|decrease|decreased|change|changed)\b/.exec(
      q,
    ) ?? /\bpercent(?:age)? (?:change|growth|increase|decrease|rise|drop) (?:in|of) (?:the )?(.+?)(?: from| between|\?|$)/.exec(q);
  if (m) return { op: 'percent-change', quantity: m[1], years, ...(unit ? { unit } : {}) };
  // How many years after/before A did B / between A and B
  m =
    /how many (years|months|days|decades) (?:after|before|passed between|elapsed between|between|separate|separated|lie between) (?:the )?(.+?) (?:did|was|were|does|do|and|had|has) (?:the )?(.+?)\??$/.exec(
      q,
    );
  if (m) return { op: 'difference', quantity: m[1], events: [m[2], m[3]], years, unit: m[1] };
  // By how many X did Q grow / How much did Q grow from Y1 to Y2 / How many more X
  m =
    /\bby how (?:many|much) (.*?)\s*(?:did|does|do|has|have|was|were|is) (?:the )?(.+?) (?:grow|grew|increase|increased|rise|rose|fall|fell|drop|dropped|decline|declined|decrease|decreased|change|changed|shrink|shrank|go up|go down|exceed|differ)\b/.exec(
      q,
    );
  if (m) return { op: 'difference', quantity: m[2], years, ...(m[1] || unit ? { unit: m[1] || unit } : {}) };
  m = /\bhow much (?:did|does|do|has|have) (?:the )?(.+?) (?:grow|grew|increase|rise|fall|drop|decline|decrease|change)\b/.exec(q);
  if (m && years.length >= 2) return { op: 'difference', quantity: m[1], years, ...(unit ? { unit } : {}) };
  m =
    /\bwhat (?:is|was) the (?:difference|change|growth|increase|decrease|gap) (?:in|of|between) (?:the )?(.+?)(?: between| from| in|\?|$)/.exec(
      q,
    );
  if (m && (years.length >= 2 || /\bbetween\b.+\band\b/.test(q)))
    return { op: 'difference', quantity: m[1], years, ...(unit ? { unit } : {}) };
  m =
    /\bhow (?:many|much) (more|fewer|less|higher|lower|larger|smaller|bigger|longer|shorter)\s+(.*?)\s*(?:did|does|do|has|have|was|were|is|are|than)\b/.exec(
      q,
    );
  if (m && years.length >= 2) return { op: 'difference', quantity: m[2] || 'value', years, ...(m[2] ? { unit: m[2] } : {}) };
  // How many more A than B: two described quantities
  m =
    /\bhow (?:many|much) (?:more|fewer|less)\s+(.+?)\s+than\s+(?:the\s+)?(.+?)(?:\s+(?:does|do|did|is|are|was|were|can|will|has|have)\b.*)?\??$/.exec(
      q,
    );
  if (m) return { op: 'difference', quantity: m[1], base: m[2], years, unit: m[1] };
  // How many times longer is A than B
  m =
    /\bhow many times (?:longer|larger|bigger|more|higher|greater|faster|heavier|taller|as (?:long|large|big|much|many|high))\s+(?:is|are|was|were)\s+(?:the\s+)?(.+?)\s+(?:than|as)\s+(?:the\s+)?(.+?)\??$/.exec(
      q,
    );
  if (m) return { op: 'times', quantity: m[1], base: m[2], years };
  // What does 3**3**3 evaluate to / What is 2 + 2 * 3
  m = /(?:\{\{\s*)?((?:\(?\s*-?\d+(?:\.\d+)?\s*\)?\s*(?:\*\*|[-+*/^×÷%])\s*)+\(?\s*-?\d+(?:\.\d+)?\s*\)?)(?:\s*\}\})?/.exec(q);
  if (m && /\b(?:evaluate|result|equal|value|compute|return|render|print|output)|^what (?:is|does)\b/.test(q))
    return { op: 'expression', quantity: m[1].trim(), expression: m[1].replace(/\s+/g, ''), years };
  // How many X are there in the three teams together / in total / combined; the total number of X
  if (
    /\b(?:together|in total|combined|altogether|all together|in all|summed|total number of|sum of|add up to|total (?:of|for))\b/.test(q)
  ) {
    const noun =
      /\bhow (?:many|much) ([\w-]+(?: (?!(?:are|is|was|were|do|does|did|there|have|has|in|of|together)\b)[\w-]+)?)/.exec(q)?.[1] ??
      /\btotal (?:number of )?([\w-]+)/.exec(q)?.[1] ??
      unit ??
      'value';
    return { op: 'sum', quantity: noun, years, unit: noun, ...(expected ? { expected } : {}) };
  }
  m = /\b(?:what (?:is|was) the )?(?:average|mean) (?:number of )?([\w-]+(?: [\w-]+)?)/.exec(q);
  if (m && /\b(?:average|mean)\b/.test(q)) return { op: 'average', quantity: m[1], years, ...(expected ? { expected } : {}) };
  return undefined;
}

/**
 * A wh-word inside a title is no question word: "… inspired What Came Before has what number?" asks
 * with its second "what". A capitalised wh-word after a word and before another capitalised word is
 * taken for part of a title and masked.
 */
function withoutTitleWhWords(question: string): string {
  return question.replace(
    /(?<=[\p{L}\d,"“'’]\s+)(What|Which|Who|Whom|Whose|When|Where|Why|How)(?=\s+["“]?\p{Lu})/gu,
    (word) => `${word[0]}\u0307${word.slice(1)}`,
  );
}

const NAMING = '(?:known as|called|named|nicknamed|dubbed|titled|renamed)';
/**
 * The thing a question asks the name of when "what" comes last: "the league cup known as what" →
 * "league cup"; "The 1998 adaptation of … is called what?" → "adaptation".
 */
function namedThing(q: string): string | undefined {
  const word = `(?!(?:that|which|who|is|was|are|were|been|also|once|now|then)\\b)[\\w'’-]+`;
  const before = new RegExp(
    `\\b(?:the|a|an)\\s+((?:${word}\\s+){0,3}?${word})\\s+(?:(?:that|which|who)\\s+(?:is|was|are|were|has been|had been)\\s+)?(?:[a-z]+ly\\s+)?${NAMING}\\s+(?:what|which)\\b`,
  ).exec(q)?.[1];
  const subject = new RegExp(
    `^(?:the|a|an)\\s+(?:\\d{4}\\s+)?((?:[\\w'’-]+\\s+){0,3}?[\\w'’-]+?)(?=\\s+(?:of|in|on|at|for|from|by|with|that|which|who|written|directed|produced|released|starring|based)\\b)[^?]*\\s(?:is|was|are|were)\\s+${NAMING}\\s+(?:what|which)\\b`,
  ).exec(q)?.[1];
  const thing = before ?? subject;
  return thing && !AUXILIARIES.test(thing.split(/\s+/)[0]) ? thing : undefined;
}

/** "Name the Norwegian painter who …" asks "Which Norwegian painter …"; "Name the rules …" lists. */
function asWhQuestion(question: string): string {
  const imperative = /^(?:name|identify)\s+(?:the|a|an)\s+/i.exec(question);
  if (!imperative) return question;
  const asked = `Which ${question.slice(imperative[0].length)}`.replace(/\.\s*$/, '?');
  const phrase = whPhrase(asked, 'which');
  return phrase && !isPlural(phrase) ? asked : question;
}

/** What the type rules read: the asking sentence in its forms and what analysis found in it. */
interface QuestionContext {
  /** The asking sentence, lower-cased, "what's" read as "what is" (what most rules match). */
  q: string;
  /** The asking sentence as written ("Name the …" read as "Which …"). */
  asking: string;
  /** The whole question without its "according to …" (what a calculation reads). */
  core: string;
  years: string[];
  candidates: string[];
  /** The interrogative that decides the type; none in a statement with a question mark. */
  wh: string | undefined;
  /** The noun phrase after "what", "which" or "whose". */
  phrase: string | undefined;
  /** "how many|much <unit>": the unit, when one is named, is group 2. */
  howMany: RegExpExecArray | null;
  /** The question opens with an auxiliary ("Is …", "Did …"). */
  isYesNo: boolean;
}

/** What a rule decides about a question. */
interface TypeDecision {
  type: QuestionType;
  answerType: AnswerType;
  focus?: string;
  unit?: string;
  calculation?: CalculationSpec;
}

interface QuestionTypeRule {
  name: QuestionRule;
  /** The decision, when the rule applies to the question. */
  decide(context: QuestionContext): TypeDecision | undefined;
}

const HOW_TO =
  /^(?:how (?:do|can|should|would|could|does|might) (?:i|you|we|one|someone|a user|users)\b|how to\b|what(?: is)? the (?:command|way|syntax|code) (?:to|for)\b|(?:which|what) (?:command|function|method|option|flag|setting|argument|parameter|class|call) (?:do|does|should|can|is used|lets|will|would)\b|show (?:me )?how\b|give (?:me )?an example\b|what do i (?:run|type|call|use) to\b)/;
const WHY = /^why\b|\bwhat (?:is|was) the reason\b|\bfor what reason\b/;
const LIST_VERB = /^(?:list|name|enumerate)\s+(?:all\s+|the\s+|every\s+)/;
const LIST_NOUN =
  /^(?:what|which) (?:are|were) (?:the |all (?:the )?)?(?:[\w-]+ ){0,3}?(?:rules|steps|options|types|kinds|ways|features|methods|parameters|arguments|settings|fields|values|exceptions|errors|modes|teams|products|members|items|components|parts|stages|phases|categories|classes|commands|flags|properties|attributes|requirements|differences|benefits|advantages|limitations|supported \w+)\b/;
const MEASURE_ASKED = /\bhow (long|old|tall|high|deep|far|big|large|heavy|wide|fast|often)\b/;
/** "what type of", "which kind of": one kind is asked, not the items. */
const KIND_OF = /^(?:what|which)\s+(?:type|kind|sort|genre|form|variety|style)\s+of\b/;

/**
 * How the question's type and answer type are decided, in order: the first rule that applies wins
 * (`description`, last, always does). The worked examples of each rule are the case table in
 * question.test.ts.
 */
export const QUESTION_TYPE_RULES: ReadonlyArray<QuestionTypeRule> = [
  { name: 'how-to', decide: ({ q }) => (HOW_TO.test(q) ? { type: 'how-to', answerType: 'command' } : undefined) },
  { name: 'why', decide: ({ q }) => (WHY.test(q) ? { type: 'why', answerType: 'reason' } : undefined) },
  { name: 'list', decide: ({ q }) => (LIST_VERB.test(q) || LIST_NOUN.test(q) ? { type: 'list', answerType: 'list' } : undefined) },
  {
    name: 'calculation',
    decide: ({ core, years, howMany }) => {
      const calculation = calculationIn(core, years, howMany?.[2]);
      return calculation ? { type: 'calculation', answerType: 'number', unit: calculation.unit, calculation } : undefined;
    },
  },
  {
    // Options side by side: one of them is the answer, or, asked with an auxiliary and no "or", whether they share it.
    name: 'options',
    decide: ({ q, candidates, isYesNo, phrase }) => {
      if (candidates.length < 2 || !setsOptionsSideBySide(q)) return undefined;
      const yesNo = isYesNo && !/\bor\b/.test(q);
      // "What nationality were both A and B?" compares nationalities
      return {
        type: yesNo ? 'yes-no' : 'comparison',
        answerType: yesNo ? 'yes-no' : 'entity',
        ...(phrase ? { focus: phrase.toLowerCase() } : {}),
      };
    },
  },
  { name: 'yes-no', decide: ({ isYesNo }) => (isYesNo ? { type: 'yes-no', answerType: 'yes-no' } : undefined) },
  {
    // two "how many" in one question: the sentence that says both
    name: 'how-many:several',
    decide: ({ q, wh }) =>
      wh === 'how' && (q.match(/\bhow (?:many|much)\b/g) ?? []).length >= 2 ? { type: 'how-many', answerType: 'description' } : undefined,
  },
  {
    name: 'how-many',
    decide: ({ wh, howMany }) => {
      if (wh !== 'how' || !howMany) return undefined;
      const unit = howMany[2]?.replace(/^(?:more|fewer|less|other)\s+/, '') || undefined;
      return { type: 'how-many', answerType: 'number', unit, focus: unit };
    },
  },
  {
    name: 'how-many:measure',
    decide: ({ q, wh }) => {
      const measure = wh === 'how' ? MEASURE_ASKED.exec(q)?.[1] : undefined;
      return measure ? { type: 'how-many', answerType: 'number', focus: measure } : undefined;
    },
  },
  { name: 'who', decide: ({ wh }) => (wh === 'who' || wh === 'whom' ? { type: 'who', answerType: 'person' } : undefined) },
  { name: 'when', decide: ({ wh }) => (wh === 'when' ? { type: 'when', answerType: 'date', focus: 'date' } : undefined) },
  { name: 'where', decide: ({ wh }) => (wh === 'where' ? { type: 'where', answerType: 'place', focus: 'place' } : undefined) },
  {
    // A plural noun that names no kind of answer asks for the items; "what kind of …" asks for one kind.
    name: 'list:plural',
    decide: ({ q, phrase }) =>
      phrase && isPlural(phrase) && !answerTypeOfNoun(phrase) && /^(?:what|which)\b/.test(q) && !KIND_OF.test(q)
        ? { type: 'list', answerType: 'list', focus: phrase.toLowerCase() }
        : undefined,
  },
  {
    // The noun asked for decides the answer type; a possessor asked for is a person.
    name: 'wh-phrase',
    decide: ({ wh, phrase }) => {
      if (!phrase) return undefined;
      const noun = phrase.toLowerCase();
      const possessor = /^((?:[\w-]+\s+){0,2}?[\w-]+)['’]s\s/.exec(noun)?.[1];
      const answerType = (possessor && answerTypeOfNoun(possessor) === 'person' ? 'person' : answerTypeOfNoun(noun)) ?? 'entity';
      let type: QuestionType = wh === 'which' ? 'which' : 'what';
      if (answerType === 'year' || answerType === 'date') type = 'when';
      if (answerType === 'place' && type === 'what') type = 'where';
      if (answerType === 'number') type = 'how-many';
      return { type, answerType, focus: noun };
    },
  },
  {
    // "what" or "which" inside the sentence, not first, asks for a thing, named
    name: 'wh-inside',
    decide: ({ q, wh }) => {
      if ((wh !== 'what' && wh !== 'which') || /^(?:what|which)\b/.test(q)) return undefined;
      const named = namedThing(q);
      return { type: 'what', answerType: 'entity', ...(named ? { focus: named } : {}) };
    },
  },
  {
    // A statement with a question mark asks for the one "this …" or "a … who" describes.
    name: 'statement',
    decide: ({ asking, wh }) => {
      if (wh) return undefined;
      const thisNoun =
        /\b(?:this|these)\s+((?:[\w-]+\s+){0,3}?[\w-]+?)(?=\s+(?:who|that|which|born|based|located|of|in|is|was|with|by|from)\b|\s*[?,]|\s*$)/i.exec(
          asking,
        )?.[1] ?? /\b(?:an?)\s+((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:who|that)\b/i.exec(asking)?.[1];
      if (!thisNoun) return undefined;
      const focus = thisNoun.toLowerCase();
      const answerType = answerTypeOfNoun(focus) ?? 'entity';
      return { type: answerType === 'person' ? 'who' : 'what', answerType, focus };
    },
  },
  { name: 'description', decide: () => ({ type: 'what', answerType: 'description' }) },
];

/** The first rule of QUESTION_TYPE_RULES that applies, and what it decides. */
function decideType(context: QuestionContext): TypeDecision & { rule: QuestionRule } {
  for (const rule of QUESTION_TYPE_RULES) {
    const decision = rule.decide(context);
    if (decision) return { ...decision, rule: rule.name };
  }
  throw new Error('question analysis: no type rule applies (the last one always should)');
}

/** What the question asks, and what kind of answer would satisfy it. */
export function analyseQuestion(question: string): QuestionAnalysis {
  const text = question.replace(/\s+/g, ' ').trim();
  // A trailing or leading "according to …" names the source, not the answer.
  const core = text
    .replace(/,?\s*according to [^,?]+(?=[?,]|$)/i, '')
    .replace(/^according to [^,]+,\s*/i, '')
    .replace(/^in the (?:documents|docs|text),?\s*/i, '');
  // Several sentences: the question is the last one that asks ("… born may 6 1945. What was …?")
  const sentences = splitSentences(core);
  const lastAsking =
    sentences.length > 1
      ? (sentences.filter((s) => /\?\s*$|^(?:what|which|who|when|where|why|how|name|identify)\b/i.test(s)).pop() ?? core)
      : core;
  const asking = asWhQuestion(withoutTitleWhWords(lastAsking));
  const q = asking
    .toLowerCase()
    .replace(/\bwhat['’]s\b/g, 'what is')
    .replace(/\bwho['’]s\b/g, 'who is');
  const years = [...text.matchAll(/\b(1[5-9]\d\d|20\d\d)\b/g)].map((m) => m[1]);
  const entities = entitiesIn(text).filter((e) => !/^(?:What|Which|Who|When|Where|How|Why|Is|Are|Was|Were|Did|Does|Do|In|The)$/.test(e));
  const candidates = candidatesIn(core);
  const chain = chainIn(text);
  const wh = interrogative(q);
  const phrase = wh === 'what' || wh === 'which' || wh === 'whose' ? whPhrase(asking, wh) : undefined;
  const howMany =
    /\bhow (many|much)\s+((?:[\w-]+\s+){0,2}?[\w-]+?)?(?=\s+(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|there|of|in|on|at|for|from|by|with|that|which|to|worldwide|together|in total|combined|altogether)\b|\s*[?,]|\s*$)/.exec(
      q,
    );
  const isYesNo = /^(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall)\b/.test(q);
  const decided = decideType({ q, asking, core, years, candidates, wh, phrase, howMany, isYesNo });
  const { rule, focus, unit, calculation } = decided;
  let { type, answerType } = decided;
  // "operations in more than 70 countries" states a property; it compares nothing
  // nor does a comparative inside an option's name ("Last Action Hero", "First for Women")
  const compared = candidates
    .reduce((text, option) => text.split(option.toLowerCase()).join(' · '), q)
    .replace(/\b(?:more|less|fewer)\s+than\s+(?:about\s+|around\s+)?[\d,.]+\b/g, ' ');
  const comparativeDirection = COMPARATIVE_MAX.test(compared) ? 'max' : COMPARATIVE_MIN.test(compared) ? 'min' : undefined;
  // Options side by side: a comparison whose answer is one of them, and what decides between them
  let comparison: ComparisonSpec | undefined;
  if (candidates.length >= 2 && type !== 'calculation') {
    const byDate =
      /\b(?:older|oldest|younger|youngest|elder|earlier|earliest|later|latest|first|before|after|newer|newest|more recent(?:ly)?|most recent(?:ly)?|born first|founded first|came first|established first)\b/.test(
        compared,
      );
    const same = (/\bsame\b|\bboth\b/.test(q) || /\bshare(?:d)?\s+(?:a|an|the)\b/.test(q)) && !comparativeDirection;
    let direction: ComparisonSpec['direction'] = same ? 'same' : (comparativeDirection ?? 'max');
    // older / earlier / first → the smaller date wins
    if (byDate) direction = /\b(?:older|oldest|elder|earlier|earliest|first|before)\b/.test(compared) ? 'min' : 'max';
    const named =
      // "can seat more people" compares seats; "Is the population of A greater than that of B?" populations
      (/\bseat\s+more\b/.test(compared) ? 'seats' : undefined) ??
      /^(?:is|was|are|were)\s+the\s+((?:[\w-]+\s+){0,2}?[\w-]+)\s+of\b.*\bthan\s+(?:that|those)\s+of\b/.exec(compared)?.[1] ??
      /\b(?:more|fewer|less|larger|smaller|bigger|greater|higher|lower|longer|shorter)\s+(?!(?:in|at|than|of|the|for|on|to|during|by|recent|recently)\b)((?:[\w-]+\s+){0,2}?[\w-]+)(?=,|\s+(?:than|in|of|the|a|an|or)\b|\s*\?|$)/.exec(
        compared,
      )?.[1] ??
      /\bthe (?:most|least|largest|greatest|highest|lowest|smallest|longest|shortest)\s+((?:[\w-]+\s+){0,2}?[\w-]+)/.exec(q)?.[1] ??
      [/\b(\w+)\s+(?:higher|lower|larger|smaller|bigger|greater|more|less)\b/.exec(q)?.[1]].find(
        (w) => w && !AUXILIARIES.test(w) && !candidates.some((c) => c.toLowerCase().split(/\s+/).includes(w)),
      ) ??
      /\bsame\s+([\w-]+)/.exec(q)?.[1] ??
      /\bshare(?:d)?\s+(?:a|an|the)\s+([\w-]+)/.exec(q)?.[1] ??
      (byDate ? 'date' : (measureOf(q) ?? focus ?? 'value'));
    // places are compared by population, however the question names the people in them
    const attribute =
      /^(?:residents|inhabitants|citizens)$/.test(named) || (named === 'people' && answerTypeOfNoun(focus ?? '') === 'place')
        ? 'population'
        : named;
    const event = /\b(?:lived|live|lives)\s+(?:the\s+)?long(?:er|est)\b|\blong(?:er|est)\s+(?:life|lives|lifespan)\b/.test(q)
      ? 'lifespan'
      : /\b(?:died|die|dies|death|dead|passed away)\b/.test(q)
        ? 'death'
        : undefined;
    if (event === 'lifespan') direction = /\bshort(?:er|est)\b/.test(q) ? 'min' : 'max';
    const firstWins = type === 'yes-no' && !same;
    comparison = {
      attribute: event === 'lifespan' ? 'lifespan' : attribute,
      direction,
      byDate: byDate || event === 'lifespan',
      ...(!same && !byDate && !comparativeDirection && !event ? { byProperty: true } : {}),
      ...(event ? { event } : {}),
      ...(firstWins ? { firstWins } : {}),
    };
    if (type === 'who' || type === 'which' || type === 'what' || type === 'when' || type === 'where') type = 'comparison';
    if (type === 'comparison') answerType = 'entity';
  }
  const multiValue = type === 'how-many' && years.length >= 2 && /\band\b/.test(q);
  const agentOf = answerType === 'person' || answerType === 'entity' ? agentAsked(text) : undefined;
  const namedAs = /\b(known as|referred to as|called|nicknamed|dubbed|renamed|titled|styled)\s+(?:what|which)\b/i
    .exec(asking)?.[1]
    .toLowerCase();
  const described =
    /\b(?:a|an)\s+((?:[\w-]+\s+){0,3}?(?!(?:in|of|on|at|for|from|by|with|to)\s)[\w-]+)\s+(?:that|which|who)\s+[^?]*\b(?:what|which|who|whom|when|where|how)\b[^?]*\??\s*$/i.exec(
      asking,
    )?.[1];
  return {
    question: text,
    type,
    answerType,
    rule,
    ...(focus ? { focus } : {}),
    ...(unit ? { unit } : {}),
    entities,
    candidates,
    ...(comparison ? { comparison } : {}),
    ...(calculation ? { calculation } : {}),
    chain,
    years,
    multiValue,
    ...(described ? { described: described.toLowerCase() } : {}),
    ...(agentOf ? { agentOf } : {}),
    ...(namedAs ? { namedAs } : {}),
  };
}
