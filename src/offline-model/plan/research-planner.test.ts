import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { composeReport, decomposeQuestion, pythonFor } from './research-planner.ts';

describe('offline research planner', () => {
  it('splits a question at its asked parts, and only there', () => {
    assert.deepEqual(decomposeQuestion('Who founded Halvorsen Instruments, in which year, and who leads it today?'), [
      'Who founded Halvorsen Instruments?',
      'In which year: founded Halvorsen Instruments?',
      'Who leads Halvorsen Instruments today?',
    ]);
    // "and who" describing one person, and a comma inside a description, are not parts
    assert.deepEqual(decomposeQuestion("Who was the writer of These Boots Are Made for Walkin' and who died in 2007?"), [
      "Who was the writer of These Boots Are Made for Walkin' and who died in 2007?",
    ]);
    assert.deepEqual(
      decomposeQuestion('A medieval fortress in Dirleton, East Lothian, Scotland borders on the south side of what coastal area?'),
      ['A medieval fortress in Dirleton, East Lothian, Scotland borders on the south side of what coastal area?'],
    );
  });

  it('keeps a noun phrase the question opens with as the subject its later parts refer to', () => {
    assert.deepEqual(decomposeQuestion('Why is Gizmo caching off by default, how do I turn it on, and how do I clear it?'), [
      'Why is Gizmo caching off by default?',
      'How do I turn Gizmo caching on?',
      'How do I clear Gizmo caching?',
    ]);
    // after "does" the word that follows the name is its verb, not part of it
    assert.deepEqual(decomposeQuestion('Which formats does Gizmo export, and how do I install it?'), [
      'Which formats does Gizmo export?',
      'How do I install Gizmo?',
    ]);
  });

  it('writes exact Python for a calculation line, rounded as the line shows its result', () => {
    assert.equal(
      pythonFor('55.2 − 48.0 = 7.2 million euros [E1][E2]'),
      "from decimal import Decimal as D, ROUND_HALF_UP\nvalue = D('55.2') - D('48.0')\nprint(\"RESULT=\" + str(value.quantize(D(1).scaleb(-1), rounding=ROUND_HALF_UP)))",
    );
    assert.match(pythonFor('6.3 / 55.2 = 11.4% [E1]')!, /value = \(D\('6\.3'\) \/ D\('55\.2'\)\) \* 100/);
    assert.match(pythonFor('1,462 + 38 = 1,500 stores [E3]')!, /D\('1462'\) \+ D\('38'\)/);
    assert.equal(pythonFor('Marit Halvorsen [E1]'), undefined);
  });

  it('puts the direct answer first, a section per sub-question, and open sub-questions last', () => {
    const report = composeReport('Who founded it, and what colour is the logo?', [
      {
        id: 'S1',
        question: 'Who founded it?',
        status: 'answered',
        answer: 'Marit Halvorsen [E1]\nHalvorsen Instruments was founded in 1987 by Marit Halvorsen. [E1]',
      },
      {
        id: 'S2',
        question: 'What colour is the logo?',
        status: 'not found in the documents',
        answer: 'Not found in the documents: the colour of the logo.',
      },
    ]);
    const lines = report.split('\n');
    assert.equal(lines[0], 'Marit Halvorsen [E1]');
    assert.ok(lines.includes('## S1. Who founded it?') && lines.includes('## S2. What colour is the logo?'));
    assert.equal(lines.at(-1), 'Open: S2: What colour is the logo? (not found in the documents)');
  });
});

describe('offline research planner: relative clauses', () => {
  it('keeps ", which was …" with the name it describes', () => {
    assert.deepEqual(decomposeQuestion('Which company bought Euromarché, which was founded in 1968?'), [
      'Which company bought Euromarché, which was founded in 1968?',
    ]);
    assert.deepEqual(decomposeQuestion('Who founded Halvorsen Instruments, and who leads it today?'), [
      'Who founded Halvorsen Instruments?',
      'Who leads Halvorsen Instruments today?',
    ]);
  });
});

describe('offline research planner: the subject of every part', () => {
  it('a part naming nothing of its own keeps the subject its first part asks about', () => {
    // The subject is the thing the auxiliary introduces ("does Kestrel support"), not the first name ("Rust").
    assert.deepEqual(decomposeQuestion('Which Rust editions does Kestrel support, and how do I install the editor plugin?'), [
      'Which Rust editions does Kestrel support?',
      'How do I install the editor plugin in Kestrel?',
    ]);
    // A part that names its own thing is left as asked.
    assert.deepEqual(decomposeQuestion('How do I mount static files in Kestrel, and what does StaticFiles need to serve a folder?'), [
      'How do I mount static files in Kestrel?',
      'What does StaticFiles need to serve a folder?',
    ]);
  });
});
