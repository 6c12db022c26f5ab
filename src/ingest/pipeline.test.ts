import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
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

/** Writes files under `root` from a path → text map, making folders as needed. */
function writeTree(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const reasonFor = (report: { skippedFiles: { path: string; reason: string }[] }, name: string) =>
  report.skippedFiles.find((skip) => basename(skip.path) === name)?.reason;

describe('ingest pipeline: documentation trees as they are written', () => {
  it('follows .. include:: and MyST {include} only within the ingested tree; an include-only file is never a failure', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const project = join(dir, 'project');
      writeTree(project, {
        'CHANGES.rst': 'Changelog\n=========\n\n1.2\n---\n\nThe gasket release replaced every flange.\n',
        'docs/changes.rst': 'Changes\n=======\n\n.. include:: ../CHANGES.rst\n',
        'docs/index.md': '# Guide\n\nThe guide covers pumps.\n',
        'docs/setup.md': '# Setup\n\n```{include} ../../outside.md\n```\n',
      });
      writeFileSync(join(dir, 'outside.md'), '# Outside\n\nThe walrus secret lives outside the tree.\n');
      const dossier = await createDossier({ db: join(dir, 'index.db') });

      // Only docs/: both includes point outside it, so they are reported and never read.
      const docsOnly = await dossier.ingest([join(project, 'docs')]);
      assert.deepEqual(docsOnly.failed, []);
      assert.equal(docsOnly.ingested, 1);
      assert.match(
        reasonFor(docsOnly, 'changes.rst') ?? '',
        /^include-only: its include \.\.\/CHANGES\.rst lies outside the ingested tree$/,
      );
      assert.match(
        reasonFor(docsOnly, 'setup.md') ?? '',
        /^include-only: its include \.\.\/\.\.\/outside\.md lies outside the ingested tree$/,
      );
      assert.equal((await dossier.search({ query: 'walrus', mode: 'fulltext' })).length, 0, 'a target outside the tree is not read');
      assert.equal((await dossier.search({ query: 'gasket', mode: 'fulltext' })).length, 0);

      // The whole project: CHANGES.rst is a document of the run, so changes.rst is skipped naming it.
      const whole = await dossier.ingest([project]);
      assert.deepEqual(whole.failed, []);
      assert.equal(reasonFor(whole, 'changes.rst'), `include-only: its content is ingested from ${join(project, 'CHANGES.rst')}`);
      const gasket = await dossier.search({ query: 'gasket', mode: 'fulltext' });
      assert.deepEqual(
        gasket.map((hit) => basename(hit.source)),
        ['CHANGES.rst'],
      );
      assert.equal((await dossier.search({ query: 'walrus', mode: 'fulltext' })).length, 0);
      await dossier.close();
    } finally {
      cleanup();
    }
  });

  it('ingests an include-only file through a target in its tree that is no document of the run', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const docs = join(dir, 'docs');
      writeTree(docs, {
        'install.md': '# Installing\n\n```{include} parts/steps.md\n```\n',
        'parts/steps.md': 'Run the bellows installer, then restart the daemon.\n',
        'usage.rst': 'Usage\n=====\n\n.. include:: parts/usage.inc\n',
        'parts/usage.inc': 'Call the ``crank`` command with a handle.\n',
      });
      const dossier = await createDossier({ db: join(dir, 'index.db') });
      // Files named one by one: the targets are in their folder's tree but not files of this run.
      const report = await dossier.ingest([join(docs, 'install.md'), join(docs, 'usage.rst')]);
      assert.deepEqual([report.ingested, report.failed, report.skippedFiles], [2, [], []]);
      const bellows = await dossier.search({ query: 'bellows installer', mode: 'fulltext' });
      assert.deepEqual([basename(bellows[0].source), bellows[0].title], ['install.md', 'Installing']);
      const crank = await dossier.search({ query: 'crank handle', mode: 'fulltext' });
      assert.deepEqual([basename(crank[0].source), crank[0].title], ['usage.rst', 'Usage']);

      // Unchanged including file and target: nothing new. A changed target re-ingests the including file.
      const again = await dossier.ingest([join(docs, 'install.md'), join(docs, 'usage.rst')]);
      assert.deepEqual([again.ingested, again.skipped], [0, 2]);
      writeFileSync(join(docs, 'parts', 'steps.md'), 'Run the harmonium installer instead.\n');
      const changed = await dossier.ingest([join(docs, 'install.md'), join(docs, 'usage.rst')]);
      assert.deepEqual([changed.ingested, changed.updated], [1, 1]);
      assert.equal((await dossier.search({ query: 'harmonium', mode: 'fulltext' }))[0]?.title, 'Installing');
      assert.equal((await dossier.search({ query: 'bellows', mode: 'fulltext' })).length, 0);
      await dossier.close();
    } finally {
      cleanup();
    }
  });

  it('reports dotfiles and hidden folders as skipped, with the reason; ingests an extensionless INI file as text', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const tree = join(dir, 'tree');
      writeTree(tree, {
        'README.md': '# Readme\n\nSee pylintrc.\n',
        '.env': 'TOKEN=not-for-the-index\n',
        '.cache/notes.md': '# Hidden\n\nThe heron note.\n',
        pylintrc: '[MESSAGES CONTROL]\ndisable=missing-docstring\n\n[FORMAT]\nmax-line-length=100\n',
        '.git/config': '[core]\n',
      });
      const dossier = await createDossier({ db: join(dir, 'index.db') });
      const report = await dossier.ingest([tree]);
      assert.deepEqual(report.failed, [], 'pylintrc is not "malformed JSON"');
      assert.equal(report.ingested, 2);
      assert.equal(reasonFor(report, '.env'), 'hidden file (its name starts with a dot)');
      assert.equal(reasonFor(report, '.cache'), 'hidden folder (its name starts with a dot): nothing in it is read');
      assert.equal(reasonFor(report, '.git'), undefined, 'version-control folders stay silent');
      assert.equal(report.skippedFiles.length, 2);
      assert.equal((await dossier.search({ query: 'heron', mode: 'fulltext' })).length, 0);
      const pylintrc = (await dossier.search({ query: 'docstring', mode: 'fulltext' }))[0];
      assert.equal(basename(pylintrc.source), 'pylintrc');
      const listed = await dossier.store.listDocuments(ALL);
      assert.equal(listed.find((doc) => basename(doc.source) === 'pylintrc')?.mediaType, 'text/plain');
      await dossier.close();
    } finally {
      cleanup();
    }
  });

  it('does not parse a failed file again while its bytes are unchanged, and retries it once they change', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const tree = join(dir, 'tree');
      writeTree(tree, { 'good.md': '# Good\n\nThe otter swims.\n', 'broken.json': '{"name": "otter",' });
      const broken = join(tree, 'broken.json');
      const dossier = await createDossier({ db: join(dir, 'index.db') });
      const first = await dossier.ingest([tree]);
      assert.equal(first.failed.length, 1);
      const reason = first.failed[0].error;
      assert.match(reason, /JSON/);
      assert.doesNotMatch(reason, /not parsed again/);
      assert.equal((await dossier.store.ingestOutcomeOf!('default', broken))?.outcome, 'failed');

      // Unchanged: still a failure in the report (the summary and --strict count it), without being parsed.
      const second = await dossier.ingest([tree]);
      assert.deepEqual(second.failed, [{ path: broken, error: `${reason} (unchanged since it failed: not parsed again)` }]);
      assert.equal(second.ingested, 0);

      // Changed and still broken: parsed again, a fresh reason.
      writeFileSync(broken, '{"name": ');
      const third = await dossier.ingest([tree]);
      assert.equal(third.failed.length, 1);
      assert.doesNotMatch(third.failed[0].error, /not parsed again/);

      // Fixed: ingested, and the remembered failure is forgotten.
      writeFileSync(broken, '{"name": "otter", "habitat": "estuary"}');
      const fixed = await dossier.ingest([tree]);
      assert.deepEqual([fixed.ingested, fixed.failed], [1, []]);
      assert.equal(await dossier.store.ingestOutcomeOf!('default', broken), undefined);
      assert.equal(basename((await dossier.search({ query: 'estuary', mode: 'fulltext' }))[0].source), 'broken.json');
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
