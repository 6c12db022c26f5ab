/**
 * The behaviour every GraphExtractor must have, as one node:test suite each implementation runs:
 * `graphExtractorContract('offline', async () => createOfflineGraphExtractor())`.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { GraphChunk, GraphExtraction, GraphExtractor, Mention } from './types.ts';

export const CONTRACT_CHUNKS: GraphChunk[] = [
  {
    id: 11,
    documentId: 1,
    collection: 'default',
    title: 'Company history',
    headingPath: ['Company history', 'Founding'],
    text: 'Halvorsen Instruments was founded in 1987 by Marit Halvorsen in Bergen, Norway. The company began by repairing ship radios.',
  },
  {
    id: 12,
    documentId: 2,
    collection: 'default',
    title: 'Configuration',
    headingPath: ['Configuration', 'Options'],
    text: 'Set `--line-length` to change the width, or set `TERN_CACHE_DIR` for the cache.\n\n```python\nfrom tern.config import Settings\nsettings = Settings(line_length=88)\n```',
  },
];

/** A chunk of its own document in the default collection, its heading path its title unless given. */
export function graphChunk(id: number, title: string, text: string, headingPath: string[] = [title]): GraphChunk {
  return { id, documentId: id, collection: 'default', title, headingPath, text };
}

/** The text a mention points at: a span of the chunk's text, title or heading. */
function mentioned(chunks: readonly GraphChunk[], mention: Mention): string {
  const chunk = chunks.find((c) => c.id === mention.chunkId);
  assert.ok(chunk, `mention of unknown chunk ${mention.chunkId}`);
  const field = mention.field === 'text' ? chunk.text : mention.field === 'title' ? chunk.title : chunk.headingPath[mention.heading ?? -1];
  assert.equal(typeof field, 'string', `mention field ${mention.field} ${mention.heading ?? ''} exists`);
  assert.ok(
    0 <= mention.start && mention.start < mention.end && mention.end <= field.length,
    `span ${mention.start}-${mention.end} within ${field.length}`,
  );
  return field.slice(mention.start, mention.end);
}

export function graphExtractorContract(name: string, make: () => Promise<GraphExtractor>): void {
  describe(`graph extractor contract: ${name}`, () => {
    let extractor: GraphExtractor;
    let extraction: GraphExtraction;
    before(async () => {
      extractor = await make();
      extraction = await extractor.extract(CONTRACT_CHUNKS);
    });

    test('has an id', () => assert.ok(typeof extractor.id === 'string' && extractor.id.length > 0));

    test('no chunks, nothing found', async () => {
      assert.deepEqual(await extractor.extract([]), { entities: [], relationships: [], failures: [] });
    });

    test('finds the names the text states plainly', () => {
      const names = extraction.entities.map((e) => e.name.toLowerCase());
      for (const wanted of ['halvorsen instruments', 'marit halvorsen', 'bergen'])
        assert.ok(names.includes(wanted), `${wanted} in ${names.join(', ')}`);
      assert.deepEqual(extraction.failures, []);
    });

    test('every entity has provenance: mentions whose spans hold its name (or its title or heading)', () => {
      for (const entity of extraction.entities) {
        assert.ok(entity.mentions.length > 0, `${entity.name} has mentions`);
        for (const mention of entity.mentions) {
          const text = mentioned(CONTRACT_CHUNKS, mention);
          if (mention.field === 'text') assert.equal(text.toLowerCase(), entity.name.toLowerCase(), `span of ${entity.name}`);
        }
      }
    });

    test('relationships join extracted entities, with positive weights and spans in the text', () => {
      const names = new Set(extraction.entities.map((e) => e.name));
      assert.ok(extraction.relationships.length > 0);
      for (const r of extraction.relationships) {
        assert.ok(names.has(r.source) && names.has(r.target), `${r.source} → ${r.target}`);
        assert.notEqual(r.source, r.target);
        assert.ok(Number.isFinite(r.weight) && r.weight > 0, `weight ${r.weight}`);
        assert.ok(r.predicate.length > 0);
        assert.ok(r.mentions.length > 0);
        for (const mention of r.mentions) mentioned(CONTRACT_CHUNKS, mention);
      }
    });

    test('is deterministic', async () => {
      assert.deepEqual(await extractor.extract(CONTRACT_CHUNKS), extraction);
    });
  });
}
