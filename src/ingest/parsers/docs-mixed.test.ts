/**
 * Every file of the shared messy corpus either parses into a valid document or fails with a
 * one-line DossierError — no crash, no foreign error, no hang. Runs in ~15 s on 2 cores. OCR is off
 * here (its 17 images and 6 scanned pages would add ~40 s); src/ingest/ocr/ocr.test.ts covers it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { DossierError } from '../../errors/index.ts';
import { assertDossierError, assertParsedDocument } from './contract.ts';
import { parseDocument, parserFor } from './index.ts';
import { DOCS_MIXED, hasDocsMixed, SKIP_REASON } from './test-data.ts';

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out.sort();
}

test('docs-mixed: every file parses or fails with a one-line DossierError', {
  skip: hasDocsMixed ? false : SKIP_REASON,
  timeout: 180_000,
}, async (t) => {
  const counts: Record<string, number> = {};
  const started = Date.now();
  for (const path of filesUnder(DOCS_MIXED)) {
    const bytes = readFileSync(path);
    const fileStarted = Date.now();
    try {
      const doc = await parseDocument({ path, bytes, ocr: false });
      const parser = parserFor(path) ?? { name: 'sniffed', extensions: ['x'], mediaTypes: [doc.mediaType], parse: async () => doc };
      assertParsedDocument(doc, parser);
      counts.parsed = (counts.parsed ?? 0) + 1;
    } catch (error) {
      if (!DossierError.isInstance(error))
        assert.fail(`${relative(DOCS_MIXED, path)}: non-Dossier error ${error instanceof Error ? error.stack : String(error)}`);
      assertDossierError(error, ['parse-failed', 'empty-document', 'encrypted-document', 'unsupported-format', 'skipped']);
      counts[error.code] = (counts[error.code] ?? 0) + 1;
    }
    assert.ok(Date.now() - fileStarted < 60_000, `${relative(DOCS_MIXED, path)} took ${Date.now() - fileStarted} ms`);
  }
  t.diagnostic(`docs-mixed: ${JSON.stringify(counts)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.ok((counts.parsed ?? 0) > 200, 'most files parse');
});
