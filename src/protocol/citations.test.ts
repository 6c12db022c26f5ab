import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { citedIds, hasCitationMarker, parseCitationMarkers, rewriteCitationMarkers, stripCitationMarkers } from './citations.ts';

// Case table: text as a model or Dossier writes it → the markers the one grammar reads.
const MARKERS: Array<[text: string, ids: string[][], unresolved: string[][]]> = [
  ['Oslo [E1].', [['E1']], [[]]],
  ['Oslo [E2, E1].', [['E2', 'E1']], [[]]],
  ['Oslo [E2; E1].', [['E2', 'E1']], [[]]],
  ['Oslo [E2 E1].', [['E2', 'E1']], [[]]],
  ['Oslo [e4].', [['E4']], [[]]],
  ['Oslo [E1,].', [['E1']], [[]]],
  ['Oslo [E2][E5].', [['E2'], ['E5']], [[], []]],
  ['Oslo [unresolved: E5].', [['E5']], [['E5']]],
  ['Oslo [E1, unresolved: E5].', [['E1', 'E5']], [['E5']]],
  ['No marker: [1], [E], [see E1], E1.', [], []],
];

describe('the citation-marker grammar', () => {
  for (const [text, ids, unresolved] of MARKERS) {
    it(`reads ${JSON.stringify(text)}`, () => {
      const markers = parseCitationMarkers(text);
      assert.deepEqual(
        markers.map((m) => m.ids),
        ids,
      );
      assert.deepEqual(
        markers.map((m) => m.unresolvedIds),
        unresolved,
      );
      for (const m of markers) assert.equal(text.slice(m.start, m.end), m.text, 'start and end locate the marker as written');
      assert.equal(hasCitationMarker(text), ids.length > 0);
    });
  }

  it('strips markers with the white space before them, or replaces them', () => {
    assert.equal(stripCitationMarkers('Oslo [E1]. Bergen [E2, unresolved: E3].'), 'Oslo. Bergen.');
    assert.equal(stripCitationMarkers('1990[E1]and 1991', ' '), '1990 and 1991');
  });

  it('lists the distinct cited ids in order of first citation', () => {
    assert.deepEqual(citedIds('A [E2]. B [e1, E2]. C [unresolved: E9].'), ['E2', 'E1', 'E9']);
  });

  it('rewrites each marker, knowing its ids', () => {
    assert.equal(
      rewriteCitationMarkers('A [E1; e2]. B [E3].', (m) => `(${m.ids.join('+')})`),
      'A (E1+E2). B (E3).',
    );
  });
});
