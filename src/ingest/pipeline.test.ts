import assert from 'node:assert/strict';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { createDossier } from '../dossier.ts';
import type { SqliteStore } from '../store/sqlite/sqlite-store.ts';
import { SHARED_DATA, sharedDataMissing, tempDir } from '../../test/helpers.ts';

const ALL = { collections: '*' } as const;

describe('ingest pipeline', () => {
  it('re-ingesting an unchanged folder adds nothing; a changed file is replaced; a deleted document leaves nothing', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const docs = join(dir, 'docs');
      const { mkdirSync } = await import('node:fs');
      mkdirSync(join(docs, 'sub'), { recursive: true });
      writeFileSync(join(docs, 'guide.md'), '# Guide\n\nThe quokka lives on Rottnest Island.\n\n## Care\n\nFeed it leaves.');
      writeFileSync(join(docs, 'notes.txt'), 'The platypus lays eggs.');
      writeFileSync(join(docs, 'sub', 'table.csv'), 'animal,continent\nkangaroo,Australia\nbison,America\n');
      const dossier = await createDossier({ db: join(dir, 'index.db') });
      const store = dossier.store as SqliteStore;
      const first = await dossier.ingest([docs]);
      assert.deepEqual([first.ingested, first.skipped, first.failed], [3, 0, []]);
      const counts = store.rowCounts();

      const again = await dossier.ingest([docs]);
      assert.deepEqual([again.ingested, again.skipped, again.chunks], [0, 3, 0]);
      assert.deepEqual(store.rowCounts(), counts);

      writeFileSync(join(docs, 'notes.txt'), 'The echidna also lays eggs.');
      const changed = await dossier.ingest([docs]);
      assert.deepEqual([changed.ingested, changed.updated, changed.skipped], [1, 1, 2]);
      assert.equal((await dossier.search({ query: 'platypus', mode: 'fulltext' })).length, 0);
      const echidna = await dossier.search({ query: 'echidna', mode: 'fulltext' });
      assert.equal(basename(echidna[0].source), 'notes.txt');
      assert.equal(store.rowCounts().documents, 3);

      const csvHit = (await dossier.search({ query: 'kangaroo', mode: 'fulltext' }))[0];
      assert.match(csvHit.text, /animal: kangaroo/, 'csv rows keep their header');
      const careHit = (await dossier.search({ query: 'leaves', mode: 'fulltext' }))[0];
      assert.deepEqual(careHit.headingPath, ['Guide', 'Care']);

      assert.equal(await dossier.deleteDocument(echidna[0].documentId), true);
      const after = store.rowCounts();
      assert.equal(after.documents, 2);
      assert.equal(after.chunks, after.vectors);
      assert.equal(after.chunks, after.fullText);
      assert.equal((await dossier.search({ query: 'echidna', mode: 'fulltext' })).length, 0);
      assert.ok((await dossier.search({ query: 'echidna', mode: 'vector' })).every((hit) => hit.documentId !== echidna[0].documentId));
      await dossier.close();
    } finally {
      cleanup();
    }
  });

  it('reports every bad input with a one-line reason and keeps going', async () => {
    const { dir, cleanup } = tempDir();
    try {
      writeFileSync(join(dir, 'good.txt'), 'Some real text about lighthouses.');
      writeFileSync(join(dir, 'empty.txt'), '');
      writeFileSync(join(dir, 'blob.bin'), Buffer.from([0, 1, 2, 3]));
      writeFileSync(join(dir, 'broken.pdf'), '%PDF-1.7 this is not really a pdf');
      const dossier = await createDossier({ db: join(dir, 'index.db') });
      const report = await dossier.ingest([dir, join(dir, 'missing.md'), join(dir, '*.nothing')]);
      assert.equal(report.ingested, 1);
      const reasons = new Map(report.failed.map((f) => [basename(f.path), f.error]));
      assert.deepEqual([...reasons.keys()].sort(), ['*.nothing', 'blob.bin', 'broken.pdf', 'empty.txt', 'missing.md']);
      for (const reason of reasons.values()) assert.doesNotMatch(reason, /\n/);
      assert.match(reasons.get('blob.bin')!, /unsupported format/);
      assert.match(reasons.get('missing.md')!, /no such file/);
      await dossier.close();
    } finally {
      cleanup();
    }
  });

  it('ingests all of docs-mixed: every file is ingested or fails with a one-line reason', {
    skip: sharedDataMissing('docs-mixed'),
    timeout: 300_000,
  }, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const dossier = await createDossier({ db: join(dir, 'index.db') });
      const root = join(SHARED_DATA, 'docs-mixed');
      // OCR off: its images and scanned pages would add ~40 s; src/ingest/ocr/ocr.test.ts covers OCR.
      const report = await dossier.ingest([root], { ocr: false });
      const files = (function walk(path: string): string[] {
        return readdirSync(path, { withFileTypes: true }).flatMap((e) =>
          e.name.startsWith('.') ? [] : e.isDirectory() ? walk(join(path, e.name)) : [join(path, e.name)],
        );
      })(root);
      assert.equal(report.ingested + report.skipped + report.failed.length, files.length, 'every file accounted for');
      assert.ok(report.ingested > files.length * 0.6, `most files ingest (${report.ingested}/${files.length})`);
      for (const failure of report.failed) {
        assert.ok(failure.error.length > 5 && !failure.error.includes('\n'), `${failure.path}: ${failure.error}`);
      }
      const reason = (name: string) => report.failed.find((f) => basename(f.path) === name)?.error;
      assert.match(reason('password.pdf') ?? '', /password/i);
      assert.match(reason('CantinaBand3.wav') ?? '', /unsupported/);
      const skippedReason = (name: string) => report.skippedFiles.find((f) => basename(f.path) === name)?.reason;
      assert.match(skippedReason('test.jpg') ?? '', /OCR is off/);
      assert.match(skippedReason('MEDRPT-2024-PAT-3847_medical_report_scan.pdf') ?? '', /scanned PDF .*OCR is off/);
      // Spot-check extracted text against markitdown's expected outputs.
      const expected = join(root, 'markitdown', 'expected_outputs');
      const checks: [string, string][] = [
        ['test.pdf', 'test.md'],
        ['REPAIR-2022-INV-001_multipage.pdf', 'REPAIR-2022-INV-001_multipage.md'],
        ['movie-theater-booking-2024.pdf', 'movie-theater-booking-2024.md'],
        ['RECEIPT-2024-TXN-98765_retail_purchase.pdf', 'RECEIPT-2024-TXN-98765_retail_purchase.md'],
      ];
      for (const [file, expectation] of checks) {
        const expectedText = readFileSync(join(expected, expectation), 'utf8');
        const phrase = distinctivePhrase(expectedText);
        const hits = await dossier.search({ query: phrase, mode: 'fulltext', k: 5 });
        assert.ok(
          hits.some((hit) => basename(hit.source) === file),
          `"${phrase}" should be found in ${file}`,
        );
        const text = (await dossier.store.getDocumentText(ALL, hits.find((hit) => basename(hit.source) === file)!.documentId))!;
        const expectedWords = new Set(words(expectedText));
        const extracted = new Set(words(text));
        const covered = [...expectedWords].filter((w) => extracted.has(w)).length / expectedWords.size;
        assert.ok(covered > 0.8, `${file}: ${(covered * 100).toFixed(0)}% of the expected words were extracted`);
      }
      await dossier.close();
    } finally {
      cleanup();
    }
  });
});

function words(text: string): string[] {
  return text.toLowerCase().match(/[a-z]{4,}/g) ?? [];
}

/** Eight words from the middle of an expected output, to search for. */
function distinctivePhrase(markdown: string): string {
  const all = markdown.match(/[A-Za-z]{4,}/g) ?? [];
  const middle = Math.floor(all.length / 2);
  return all.slice(middle, middle + 8).join(' ');
}
