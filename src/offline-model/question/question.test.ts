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
    assert.deepEqual(analysis[key as keyof QuestionAnalysis], value, `${question}: ${key} is ${JSON.stringify(analysis[key as keyof QuestionAnalysis])}`);
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
  ['By how many staff did Velder Labs grow from 2021 to 2023?', { rule: 'calculation', type: 'calculation', answerType: 'number', unit: 'staff', calculation: { op: 'difference', quantity: 'velder labs', years: ['2021', '2023'], unit: 'staff' } }],
  ['What was the revenue in 2024 as a share of the revenue in 2020?', { rule: 'calculation', type: 'calculation', answerType: 'number', calculation: { op: 'percentage', quantity: 'revenue', base: 'revenue', years: ['2024', '2020'] } }],
  [
    'How many years after the founding of Orsk Mills did the company move its headquarters to Trondheim?',
    { rule: 'calculation', type: 'calculation', unit: 'years', calculation: { op: 'difference', quantity: 'years', events: ['founding of orsk mills', 'company move its headquarters to trondheim'], years: [], unit: 'years' } },
  ],
  // options side by side: a comparison, or, asked with an auxiliary and no "or", whether they share it
  ['Who is older, Marta Quell or Jonas Brandt?', { rule: 'options', type: 'comparison', answerType: 'entity', candidates: ['Marta Quell', 'Jonas Brandt'] }],
  ['Are Marta Quell and Jonas Brandt both painters?', { rule: 'options', type: 'yes-no', answerType: 'yes-no', candidates: ['Marta Quell', 'Jonas Brandt'] }],
  // "What nationality were both A and B?" compares nationalities
  ['What nationality were both Marta Quell and Jonas Brandt?', { rule: 'options', type: 'comparison', focus: 'nationality', comparison: { attribute: 'nationality', direction: 'same', byDate: false } }],
  // yes-no: an auxiliary first
  ['Is the Velder Cup held in winter?', { rule: 'yes-no', type: 'yes-no', answerType: 'yes-no', candidates: [] }],
  // two "how many": the sentence that says both is the answer
  ['How many rooms does the Orsk Hotel have, and how many floors does it have?', { rule: 'how-many:several', type: 'how-many', answerType: 'description' }],
  ['How many engineers does the Velder team have?', { rule: 'how-many', type: 'how-many', answerType: 'number', unit: 'engineers', focus: 'engineers' }],
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
  ['What is the daily meal allowance abroad?', { rule: 'wh-phrase', type: 'how-many', answerType: 'number', focus: 'daily meal allowance abroad' }],
  // a possessor asked for is a person when it names one
  ["Which author's novel was adapted into The Grey Harbour?", { rule: 'wh-phrase', type: 'which', answerType: 'person' }],
  ["What company's logo shows a heron?", { rule: 'wh-phrase', type: 'what', answerType: 'entity' }],
  // "what" inside the sentence: a thing, named
  ['The league cup of the Orsk football association is known as what for sponsorship reasons?', { rule: 'wh-inside', type: 'what', answerType: 'entity', focus: 'league cup', namedAs: 'known as' }],
  ['The 1998 adaptation of The Grey Harbour is called what?', { rule: 'wh-inside', type: 'what', answerType: 'entity', focus: 'adaptation', namedAs: 'called' }],
  ['The harbour treaty secured what for Tarnby?', { rule: 'wh-inside', type: 'what', answerType: 'entity', focus: undefined }],
  // a statement with a question mark asks for the one it describes
  ['Jonas Brandt worked with this portrait painter born in Orsk?', { rule: 'statement', type: 'who', answerType: 'person', focus: 'portrait painter' }],
  ['Marta Quell studied under a painter who later moved to Tarnby?', { rule: 'statement', type: 'who', answerType: 'person', focus: 'painter' }],
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
