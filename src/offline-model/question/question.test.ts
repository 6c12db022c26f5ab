// Question analysis as case tables: each row is a question and what its analysis must say. These are
// the worked examples of the rules in question.ts; the comments there say why a rule exists. Every
// question here is constructed (invented names and places): none comes from an evaluation set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyseQuestion, QUESTION_TYPE_RULES, type QuestionAnalysis, type QuestionRule } from './question.ts';

type Expected = Partial<QuestionAnalysis>;

/** Asserts the keys `expected` names (a key set to undefined must be absent). */
function check(question: string, expected: Expected): void {
  const analysis = analyseQuestion(question);
  for (const [key, value] of Object.entries(expected)) {
    assert.deepEqual(
      analysis[key as keyof QuestionAnalysis],
      value,
      `${question}: ${key} is ${JSON.stringify(analysis[key as keyof QuestionAnalysis])}`,
    );
  }
}

function table(name: string, cases: Array<[string, Expected]>): void {
  describe(name, () => {
    for (const [question, expected] of cases) it(question, () => check(question, expected));
  });
}

/** QUESTION_TYPE_RULES in order: the rule that decides each question's type, and what it decides. */
const TYPE_CASES: Array<[string, Expected & { rule: QuestionRule }]> = [
  // how-to: asking for a command, a way, an option
  ['How do I rotate the signing keys?', { rule: 'how-to', type: 'how-to', answerType: 'command' }],
  ['How to export a report as PDF?', { rule: 'how-to', type: 'how-to', answerType: 'command' }],
  ['Which flag does the importer use to skip headers?', { rule: 'how-to', type: 'how-to', answerType: 'command' }],
  // why: a reason, however it is asked
  ['Why did the Tarn Valley mill close?', { rule: 'why', type: 'why', answerType: 'reason' }],
  ['What was the reason for the Orsk bridge closure?', { rule: 'why', type: 'why', answerType: 'reason' }],
  // list: "list all …", "what are the supported …"
  ['List all the settings of the exporter.', { rule: 'list', type: 'list', answerType: 'list' }],
  ['What are the supported formats of the exporter?', { rule: 'list', type: 'list', answerType: 'list' }],
  // calculation: the question names an operation over values
  [
    'By how many staff did Velder Labs grow from 2021 to 2023?',
    {
      rule: 'calculation',
      type: 'calculation',
      answerType: 'number',
      unit: 'staff',
      calculation: { op: 'difference', quantity: 'velder labs', years: ['2021', '2023'], unit: 'staff' },
    },
  ],
  [
    'What was the revenue in 2024 as a share of the revenue in 2020?',
    {
      rule: 'calculation',
      type: 'calculation',
      answerType: 'number',
      calculation: { op: 'percentage', quantity: 'revenue', base: 'revenue', years: ['2024', '2020'] },
    },
  ],
  [
    'How many years after the founding of Orsk Mills did the company move its headquarters to Trondheim?',
    {
      rule: 'calculation',
      type: 'calculation',
      unit: 'years',
      calculation: {
        op: 'difference',
        quantity: 'years',
        events: ['founding of orsk mills', 'company move its headquarters to trondheim'],
        years: [],
        unit: 'years',
      },
    },
  ],
  // options side by side: a comparison, or, asked with an auxiliary and no "or", whether they share it
  [
    'Who is older, Marta Quell or Jonas Brandt?',
    { rule: 'options', type: 'comparison', answerType: 'entity', candidates: ['Marta Quell', 'Jonas Brandt'] },
  ],
  [
    'Are Marta Quell and Jonas Brandt both painters?',
    { rule: 'options', type: 'yes-no', answerType: 'yes-no', candidates: ['Marta Quell', 'Jonas Brandt'] },
  ],
  // "What nationality were both A and B?" compares nationalities
  [
    'What nationality were both Marta Quell and Jonas Brandt?',
    {
      rule: 'options',
      type: 'comparison',
      focus: 'nationality',
      comparison: { attribute: 'nationality', direction: 'same', byDate: false },
    },
  ],
  // yes-no: an auxiliary first
  ['Is the Velder Cup held in winter?', { rule: 'yes-no', type: 'yes-no', answerType: 'yes-no', candidates: [] }],
  // two "how many": the sentence that says both is the answer
  [
    'How many rooms does the Orsk Hotel have, and how many floors does it have?',
    { rule: 'how-many:several', type: 'how-many', answerType: 'description' },
  ],
  [
    'How many engineers does the Velder team have?',
    { rule: 'how-many', type: 'how-many', answerType: 'number', unit: 'engineers', focus: 'engineers' },
  ],
  // "how many more X", "how many other X": the unit is X
  ['How many more engineers does the Velder team have?', { rule: 'how-many', type: 'how-many', unit: 'engineers' }],
  ['How many other engineers are in the Velder team?', { rule: 'how-many', type: 'how-many', unit: 'engineers' }],
  ['How long is the Velder Tunnel?', { rule: 'how-many:measure', type: 'how-many', answerType: 'number', focus: 'long' }],
  ['How old was Jonas Brandt when he died?', { rule: 'how-many:measure', type: 'how-many', focus: 'old' }],
  ['Who painted The Grey Harbour?', { rule: 'who', type: 'who', answerType: 'person', agentOf: 'painted' }],
  ['Whom did Marta Quell marry?', { rule: 'who', type: 'who', answerType: 'person' }],
  // a wh-word at the end or after a preposition asks too: "formed by who?", "born where"
  ['The Orsk choir was formed by who?', { rule: 'who', type: 'who', answerType: 'person' }],
  ['When did the Orsk Hotel open?', { rule: 'when', type: 'when', answerType: 'date', focus: 'date' }],
  ['Where was Marta Quell born?', { rule: 'where', type: 'where', answerType: 'place', focus: 'place' }],
  // a plural noun that names no kind of answer asks for the items
  ['Which exporters can write to a network share?', { rule: 'list:plural', type: 'list', answerType: 'list', focus: 'exporters' }],
  ['What kinds of values can the mode setting take?', { rule: 'list:plural', type: 'list', focus: 'values' }],
  // … but "what sort of", "what type of" asks for one kind
  ['What sort of goods does Velder Labs sell?', { rule: 'wh-phrase', type: 'what', answerType: 'entity', focus: 'goods' }],
  ['What type of events does the Orsk Hall host?', { rule: 'wh-phrase', type: 'what', focus: 'events' }],
  // the noun asked for decides the answer type, and a year, date, place or number the type
  ['Which painter taught Jonas Brandt?', { rule: 'wh-phrase', type: 'which', answerType: 'person', focus: 'painter' }],
  ['What year did the Orsk Hotel open?', { rule: 'wh-phrase', type: 'when', answerType: 'year', focus: 'year' }],
  ['What city is the Velder Cup held in?', { rule: 'wh-phrase', type: 'where', answerType: 'place', focus: 'city' }],
  ['In which city was the founder of Orsk Mills born?', { rule: 'wh-phrase', type: 'which', answerType: 'place', focus: 'city' }],
  ['What was the population of Tarnby in 2010?', { rule: 'wh-phrase', type: 'how-many', answerType: 'number', focus: 'population' }],
  // the head noun, past a trailing adverb
  [
    'What is the daily meal allowance abroad?',
    { rule: 'wh-phrase', type: 'how-many', answerType: 'number', focus: 'daily meal allowance abroad' },
  ],
  // a possessor asked for is a person when it names one
  ["Which author's novel was adapted into The Grey Harbour?", { rule: 'wh-phrase', type: 'which', answerType: 'person' }],
  ["What company's logo shows a heron?", { rule: 'wh-phrase', type: 'what', answerType: 'entity' }],
  // "what" inside the sentence: a thing, named
  [
    'The league cup of the Orsk football association is known as what for sponsorship reasons?',
    { rule: 'wh-inside', type: 'what', answerType: 'entity', focus: 'league cup', namedAs: 'known as' },
  ],
  [
    'The 1998 adaptation of The Grey Harbour is called what?',
    { rule: 'wh-inside', type: 'what', answerType: 'entity', focus: 'adaptation', namedAs: 'called' },
  ],
  ['The harbour treaty secured what for Tarnby?', { rule: 'wh-inside', type: 'what', answerType: 'entity', focus: undefined }],
  // a statement with a question mark asks for the one it describes
  [
    'Jonas Brandt worked with this portrait painter born in Orsk?',
    { rule: 'statement', type: 'who', answerType: 'person', focus: 'portrait painter' },
  ],
  [
    'Marta Quell studied under a painter who later moved to Tarnby?',
    { rule: 'statement', type: 'who', answerType: 'person', focus: 'painter' },
  ],
  // none applies: a description is asked
  ['How does the exporter handle retries?', { rule: 'description', type: 'what', answerType: 'description' }],
  ['What happens when a job fails?', { rule: 'description', type: 'what', answerType: 'description' }],
  ['Tell me about the Orsk Hotel?', { rule: 'description', type: 'what', answerType: 'description' }],
];

describe('question analysis: the type rules', () => {
  it('names each rule once, and every rule has a case below', () => {
    const names = QUESTION_TYPE_RULES.map((rule) => rule.name);
    assert.equal(new Set(names).size, names.length);
    const covered = new Set(TYPE_CASES.map(([, expected]) => expected.rule));
    assert.deepEqual(
      names.filter((name) => !covered.has(name)),
      [],
    );
    assert.equal(names.at(-1), 'description', 'the last rule is the one that always applies');
  });
  for (const [question, expected] of TYPE_CASES) it(`${expected.rule}: ${question}`, () => check(question, expected));
});

/** The options a question sets side by side, and what decides between them. */
table('question analysis: options and what compares them', [
  // where the options stand: "Between A and B, …", "A or B, who …", "Of A and B, which …", "Which of A and B …", "the younger of A and B"
  [
    'Between Marta Quell and Jonas Brandt, who was born first?',
    { candidates: ['Marta Quell', 'Jonas Brandt'], comparison: { attribute: 'date', direction: 'min', byDate: true } },
  ],
  [
    'Marta Quell or Jonas Brandt, who is older?',
    { candidates: ['Marta Quell', 'Jonas Brandt'], comparison: { attribute: 'date', direction: 'min', byDate: true } },
  ],
  ['Of the Orsk Hall and the Velder Hall, which opened first?', { type: 'comparison', candidates: ['Orsk Hall', 'Velder Hall'] }],
  ['Which of Orsk Mills and Velder Labs was founded first?', { type: 'comparison', candidates: ['Orsk Mills', 'Velder Labs'] }],
  [
    'Who is the younger of Marta Quell and Jonas Brandt?',
    { candidates: ['Marta Quell', 'Jonas Brandt'], comparison: { attribute: 'date', direction: 'max', byDate: true } },
  ],
  // after the asking clause's comma, each option may carry its region after a comma of its own
  [
    'Which county is larger, Orsk County, Vermont or Tarn County, Vermont?',
    {
      candidates: ['Orsk County, Vermont', 'Tarn County, Vermont'],
      comparison: { attribute: 'area size', direction: 'max', byDate: false },
    },
  ],
  // … but a region in the asking clause is no part of the first option
  ['Who was born in Tarnby, Vermont, Marta Quell or Jonas Brandt?', { candidates: ['Marta Quell', 'Jonas Brandt'] }],
  // places are compared by population, however the question names the people in them
  [
    'Which village had more residents, Tarnby or Kelby, Suffolk?',
    { candidates: ['Tarnby', 'Kelby, Suffolk'], comparison: { attribute: 'population', direction: 'max', byDate: false } },
  ],
  // "Is A … than B?": yes when the first option wins
  [
    'Is the population of Tarnby greater than that of Kelby, Suffolk?',
    {
      type: 'yes-no',
      candidates: ['Tarnby', 'Kelby, Suffolk'],
      comparison: { attribute: 'population', direction: 'max', byDate: false, firstWins: true },
    },
  ],
  [
    'Is Marta Quell older than Jonas Brandt?',
    {
      type: 'yes-no',
      candidates: ['Marta Quell', 'Jonas Brandt'],
      comparison: { attribute: 'date', direction: 'min', byDate: true, firstWins: true },
    },
  ],
  [
    'Was the Orsk Radio released before the Velder Radio?',
    {
      type: 'yes-no',
      candidates: ['Orsk Radio', 'Velder Radio'],
      comparison: { attribute: 'date', direction: 'min', byDate: true, firstWins: true },
    },
  ],
  // "Is A or B …?" asks which, not whether
  [
    'Is the Orsk Peak or the Velder Peak higher?',
    {
      type: 'comparison',
      candidates: ['Orsk Peak', 'Velder Peak'],
      comparison: { attribute: 'height high', direction: 'max', byDate: false },
    },
  ],
  [
    'Was Marta Quell or Jonas Brandt born first?',
    { type: 'comparison', candidates: ['Marta Quell', 'Jonas Brandt'], comparison: { attribute: 'date', direction: 'min', byDate: true } },
  ],
  // no comma before the options; a name may hold "for" or a comparative ("First for Readers")
  ['who is younger Marta Quell or Jonas Brandt', { type: 'comparison', candidates: ['Marta Quell', 'Jonas Brandt'] }],
  [
    'Which magazine was started first Orsk Weekly or First for Readers',
    { candidates: ['Orsk Weekly', 'First for Readers'], comparison: { attribute: 'date', direction: 'min', byDate: true } },
  ],
  // a death, or the length of a life
  ['Who died first, Marta Quell or Jonas Brandt?', { comparison: { attribute: 'date', direction: 'min', byDate: true, event: 'death' } }],
  [
    'Who lived longer, Marta Quell or Jonas Brandt?',
    { comparison: { attribute: 'lifespan', direction: 'max', byDate: true, event: 'lifespan' } },
  ],
  // "can seat more people" compares seats; a measure by its comparative
  ['Which hall can seat more people, Orsk Hall or Velder Hall?', { comparison: { attribute: 'seats', direction: 'max', byDate: false } }],
  [
    'Which tunnel is longer, the Orsk Tunnel or the Velder Tunnel?',
    { candidates: ['Orsk Tunnel', 'Velder Tunnel'], comparison: { attribute: 'length long', direction: 'max', byDate: false } },
  ],
  [
    'Which team has fewer engineers, the Coastal Team or the Harbour Team?',
    { candidates: ['Coastal Team', 'Harbour Team'], comparison: { attribute: 'engineers', direction: 'min', byDate: false } },
  ],
  // no comparative: the option the description fits ("more than 40 countries" states a property)
  [
    'Which poet was from Scotland, Marta Quell or Jonas Brandt?',
    { focus: 'poet', comparison: { attribute: 'poet', direction: 'max', byDate: false, byProperty: true } },
  ],
  ['Which firm has offices in more than 40 countries, Orsk Mills or Velder Labs?', { candidates: ['Orsk Mills', 'Velder Labs'] }],
  // sharing: do both have it, or the same one
  [
    'Do Orsk Mills and Velder Labs share a founder?',
    { type: 'yes-no', candidates: ['Orsk Mills', 'Velder Labs'], comparison: { attribute: 'founder', direction: 'same', byDate: false } },
  ],
  [
    'Were Marta Quell and Jonas Brandt of the same nationality?',
    { type: 'yes-no', comparison: { attribute: 'nationality', direction: 'same', byDate: false } },
  ],
  // an option is its name: without the question's words after it, or a common noun before it
  ['Are both Larch and Quenvaria genera of plants?', { candidates: ['Larch', 'Quenvaria'] }],
  ['Are both Marta Quell and Jonas Brandt American painters?', { candidates: ['Marta Quell', 'Jonas Brandt'] }],
  ['Are the drinks Velder Fizz and Orsk Tonic both made with gin?', { candidates: ['Velder Fizz', 'Orsk Tonic'] }],
]);

/** The noun a what/which question asks for, where it ends, and what else a question says of its answer. */
table('question analysis: the noun asked for', [
  ['What Vermont town is the Orsk Hall in?', { type: 'where', focus: 'vermont town' }],
  ['What type of forum is Orsk Talk?', { focus: 'forum' }],
  ["What's the capital of Velderland?", { type: 'where', answerType: 'place', focus: 'capital' }],
  // the noun ends at a verb in -s before an article or a name, at a participle, at a verb in -ed
  ['Which attribute gives the next page?', { focus: 'attribute' }],
  ['Which adventure film stars Marta Quell?', { focus: 'adventure film' }],
  ['Which mystery series told in the first person has three books?', { focus: 'mystery series', type: 'which' }],
  ['Which film director hosted the Orsk Awards?', { focus: 'film director', answerType: 'person' }],
  // "series" and "status" are no plurals
  ['Which series did Marta Quell write?', { rule: 'wh-phrase', type: 'which', focus: 'series' }],
  ['What status does the job have?', { rule: 'wh-phrase', focus: 'status' }],
  // "Name the …" asks which one; several sentences ask with the last that asks; "according to …" names the source
  ['Name the Norwegian painter who founded Orsk Mills.', { type: 'which', answerType: 'person', focus: 'norwegian painter' }],
  ['Name the rules of the Orsk league.', { rule: 'list', type: 'list' }],
  ['Marta Quell was born in 1950. What was her first novel?', { rule: 'wh-phrase', focus: 'her first novel', years: ['1950'] }],
  ['What is the maximum upload size, according to the admin guide?', { type: 'how-many', focus: 'maximum upload size' }],
  // a wh-word inside a title asks nothing
  [
    'The song that inspired What Came Before has what catalogue number?',
    { type: 'how-many', answerType: 'number', focus: 'catalogue number' },
  ],
  // a wh-word at the end asks too
  ['The Orsk Hotel was opened when ?', { rule: 'when', type: 'when' }],
  // the participle whose "by …" names the answer
  ['Who directed the film adaptation of The Grey Harbour?', { agentOf: 'directed' }],
  ['Which company published The Grey Harbour?', { agentOf: 'published' }],
  ['The Orsk choir was formed by which company?', { agentOf: 'formed' }],
  // the thing a trailing relative clause describes, not names
  ['What is the debut album of a Norwegian folk band that was formed by who?', { described: 'norwegian folk band' }],
]);

/** The hops of a multi-hop question: the phrase, the name it starts from, and the question left about it. */
function hopsOf(question: string): Array<[string, string | undefined, string, boolean]> {
  return analyseQuestion(question).chain.map((hop) => [hop.relation, hop.entity, hop.rest, hop.terminal]);
}

describe('question analysis: multi-hop chains', () => {
  const cases: Array<[string, Array<[string, string | undefined, string, boolean]>]> = [
    // a role of a named thing; asking for the role itself ends the chain
    ['In which city was the founder of Orsk Mills born?', [['founder', 'Orsk Mills', 'In which city was {} born?', false]]],
    ['Who was the founder of Orsk Mills?', [['founder', 'Orsk Mills', 'Who was {}?', true]]],
    // a relative clause with a name in it; a verb in -ed after its name is the sentence's own
    ['Who leads the team that built the Velder-9 probe?', [['team that built the Velder-9 probe', 'Velder-9', 'Who leads {}?', false]]],
    [
      'The coach who recruited Jonas Brandt coached which club?',
      [['coach who recruited Jonas Brandt', 'Jonas Brandt', '{} coached which club?', false]],
    ],
    // "founded by", "containing"
    [
      'In what year did the company founded by Marta Quell open its first shop?',
      [['company founded by Marta Quell', 'Marta Quell', 'In what year did {} open its first shop?', false]],
    ],
    [
      'How many residents does the county containing Orsk Lake have?',
      [['county containing Orsk Lake', 'Orsk Lake', 'How many residents does {} have?', false]],
    ],
    // the owner describes the thing named after it, which the hop starts from
    [
      "Who produced the album that included Marta Quell's single Grey Harbour?",
      [["album that included Marta Quell's single Grey Harbour", 'Grey Harbour', 'Who produced {}?', false]],
    ],
    // a demonym is no name to start from: the hop runs on to the name
    [
      'The author of the Norwegian novel about fisherman Jonas Brandt was born in which year?',
      [['author', 'Jonas Brandt', '{} was born in which year?', false]],
    ],
    // the subject leads, by what it is said to be or to do, to the one the rest asks about
    [
      'Orsk Lake is in a county that has a population of how many inhabitants?',
      [['is in', 'Orsk Lake', '{} that has a population of how many inhabitants?', false]],
    ],
  ];
  for (const [question, hops] of cases) it(question, () => assert.deepEqual(hopsOf(question), hops));
});
