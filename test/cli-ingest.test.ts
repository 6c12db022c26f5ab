/** `dossier ingest` on real folders: front matter and --metadata(-json), listing, symlinks, the progress bar, RST docs. */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, it } from 'node:test';
import { byteProgress, progressBar } from '../src/cli/io.ts';
import { runCli, SHARED_DATA, sharedDataMissing, tempDir } from './helpers.ts';

const frontMatter = (fields: string[], body: string) => ['---', ...fields, '---', '', body].join('\n');

describe('dossier ingest: metadata', () => {
  it('turns front matter into metadata; the README filter example works on a fresh index', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const files = join(dir, 'reports');
      mkdirSync(files);
      writeFileSync(join(files, 'r2022.md'), frontMatter(['title: Budget 2022', 'year: 2022'], 'The budget for 2022 was tight.'));
      writeFileSync(
        join(files, 'r2023.md'),
        frontMatter(['title: Budget 2023', 'year: 2023', 'tags: [finance, plan]'], 'The budget for 2023 grew.'),
      );
      writeFileSync(
        join(files, 'r2024.md'),
        frontMatter(['title: "Budget 2024"', 'year: 2024', 'owner:', '  name: Ada', '  team: coast'], 'The budget for 2024 doubled.'),
      );
      const ingest = await runCli(['ingest', files, '--db', db, '--json']);
      assert.equal(ingest.status, 0, ingest.stderr);
      assert.equal(ingest.json.ingested, 3);

      // The README's example, verbatim.
      const search = await runCli(['search', 'budget', '--filter', '{"metadata.year":{"$gte":2023}}', '--json', '--db', db]);
      assert.equal(search.status, 0, search.stderr);
      assert.deepEqual(search.json.hits.map((hit: { title: string }) => hit.title).sort(), ['Budget 2023', 'Budget 2024']);

      const listed = await runCli(['list', '--db', db, '--json']);
      const byTitle = new Map(listed.json.documents.map((d: { title: string }) => [d.title, d]));
      assert.deepEqual((byTitle.get('Budget 2023') as { metadata: unknown }).metadata, {
        title: 'Budget 2023',
        year: 2023,
        tags: ['finance', 'plan'],
      });
      assert.deepEqual((byTitle.get('Budget 2024') as { metadata: unknown }).metadata, {
        title: 'Budget 2024',
        year: 2024,
        owner: { name: 'Ada', team: 'coast' },
      });
      const nested = await runCli(['search', 'budget', '--filter', '{"metadata.owner.team":"coast"}', '--json', '--db', db]);
      assert.deepEqual(
        nested.json.hits.map((hit: { title: string }) => hit.title),
        ['Budget 2024'],
      );
    } finally {
      cleanup();
    }
  });

  it('merges --metadata-json with --metadata (which wins) over the front matter', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const file = join(dir, 'note.md');
      writeFileSync(file, frontMatter(['year: 2020', 'team: front'], 'A note about lighthouses.'));
      const result = await runCli([
        'ingest',
        file,
        '--db',
        db,
        '--metadata-json',
        '{"year":2021,"team":"json","labels":["a","b"],"owner":{"name":"Ada"}}',
        '--metadata',
        'team=cli',
        '--json',
      ]);
      assert.equal(result.status, 0, result.stderr);
      const listed = await runCli(['list', '--db', db, '--json']);
      assert.deepEqual(listed.json.documents[0].metadata, { year: 2021, team: 'cli', labels: ['a', 'b'], owner: { name: 'Ada' } });
    } finally {
      cleanup();
    }
  });

  it('refuses bad --metadata-json with one line and exit code 2', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, 'note.md');
      writeFileSync(file, '# Note\n\nText.');
      for (const bad of ['{"year": 2021', '[1, 2]', '"text"', '{\n"a":\n']) {
        const result = await runCli(['ingest', file, '--db', join(dir, 'index.db'), '--metadata-json', bad]);
        assert.equal(result.status, 2, bad);
        assert.match(result.stderr, /^dossier: --metadata-json (is not valid JSON|must be a JSON object)/);
        assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
      }
    } finally {
      cleanup();
    }
  });
});

describe('dossier ingest: folders', () => {
  it('lists id, collection, title, source, chunks and updated, and --sync removes what is gone', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const files = join(dir, 'notes');
      mkdirSync(files);
      writeFileSync(join(files, 'a.md'), '# Alpha\n\nAlpha text.');
      writeFileSync(join(files, 'b.md'), '# Beta\n\nBeta text.');
      assert.equal((await runCli(['ingest', files, '--db', db, '--collection', 'notes'])).status, 0);
      const human = await runCli(['list', '--db', db]);
      const lines = human.stdout.trim().split('\n');
      assert.equal(lines.length, 2);
      assert.match(lines[0], /^\s*\d+ {2}Alpha notes · text\/markdown · 1 chunks · updated \d{4}-\d\d-\d\d \d\d:\d\d UTC · .*a\.md$/);
      const json = await runCli(['list', '--db', db, '--json']);
      assert.match(json.json.documents[0].updatedAt, /^\d{4}-\d\d-\d\dT/);

      const { rmSync } = await import('node:fs');
      rmSync(join(files, 'b.md'));
      const synced = await runCli(['ingest', files, '--db', db, '--collection', 'notes', '--sync', '--json']);
      assert.deepEqual([synced.json.skipped, synced.json.removed], [1, 1]);
      assert.deepEqual(
        (await runCli(['list', '--db', db, '--json'])).json.documents.map((d: { title: string }) => d.title),
        ['Alpha'],
      );
    } finally {
      cleanup();
    }
  });

  it('ingests a file once however many symlinks reach it, and a symlink loop does not hang', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const docs = join(dir, 'docs');
      const outside = join(dir, 'outside');
      mkdirSync(join(docs, 'sub'), { recursive: true });
      mkdirSync(outside);
      writeFileSync(join(docs, 'a.md'), '# A\n\nThe alpha file.');
      writeFileSync(join(docs, 'sub', 'b.md'), '# B\n\nThe beta file.');
      writeFileSync(join(outside, 'c.md'), '# C\n\nThe gamma file, only reachable through a link.');
      symlinkSync(join(docs, 'a.md'), join(docs, '0-link-to-a.md')); // sorts before a.md
      symlinkSync('..', join(docs, 'sub', 'loop')); // docs/sub/loop → docs
      symlinkSync(outside, join(docs, 'linked-folder'));
      symlinkSync(join(dir, 'missing.md'), join(docs, 'broken.md'));
      symlinkSync(db, join(docs, 'index-link.db')); // the index itself, through a link: never read

      const folder = await runCli(['ingest', docs, '--db', db, '--json']);
      assert.equal(folder.status, 0, folder.stderr);
      assert.deepEqual([folder.json.ingested, folder.json.failed.length], [3, 0]);
      const sources = (await runCli(['list', '--db', db, '--json'])).json.documents.map((d: { source: string }) => d.source).sort();
      assert.deepEqual(
        sources,
        [join(docs, 'a.md'), join(docs, 'linked-folder', 'c.md'), join(docs, 'sub', 'b.md')],
        'the real path wins over a link; a file only linked keeps its path under the folder',
      );

      const globbed = await runCli(['ingest', `${docs}/**/*.md`, join(docs, '0-link-to-a.md'), '--db', db, '--json']);
      assert.equal(globbed.status, 0, globbed.stderr);
      assert.deepEqual(
        [globbed.json.ingested, globbed.json.skipped],
        [0, 3],
        'a glob through the loop and the links finds the same three files',
      );
    } finally {
      cleanup();
    }
  });

  it('shows files and bytes on the progress bar', async () => {
    assert.equal(byteProgress(3_100_000, 9_800_000), '3.1/9.8 MB');
    assert.equal(byteProgress(512, 900), '512/900 B');
    assert.equal(byteProgress(1_500, 42_000), '1.5/42.0 KB');
    let shown = '';
    const tty = { stdout: { write: () => true }, stderr: { isTTY: true, write: (chunk: string) => ((shown += chunk), true) }, env: {} };
    const bar = await progressBar(tty, 'ingest', { unit: 'files' });
    bar.update(12, 40, 'notes/a.md', { done: 3_100_000, total: 9_800_000 });
    bar.stop();
    assert.match(shown, /ingest \[[#-]+\] 12\/40 files · 3\.1\/9\.8 MB notes\/a\.md/);

    // The CLI wires the pipeline's byte counts to it.
    const { dir, cleanup } = tempDir();
    try {
      const files = join(dir, 'files');
      mkdirSync(files);
      for (const name of ['a', 'b', 'c']) writeFileSync(join(files, `${name}.txt`), `${name} `.repeat(2000));
      const { main } = await import('../src/cli/main.ts');
      let stderr = '';
      const status = await main(['ingest', files, '--db', join(dir, 'index.db')], {
        ...tty,
        stderr: { isTTY: true, write: (chunk: string) => ((stderr += chunk), true) },
        env: { ...process.env, NO_COLOR: '1' },
      });
      assert.equal(status, 0, stderr);
      assert.match(stderr, /\d\/3 files · \d+\.\d\/12\.0 KB/);
    } finally {
      cleanup();
    }
  });

  it('ingests the Jinja reStructuredText docs into sensible chunks', { skip: sharedDataMissing('docs-dev/jinja') }, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, 'index.db');
      const ingest = await runCli(['ingest', join(SHARED_DATA, 'docs-dev', 'jinja'), '--db', db, '--json']);
      assert.equal(ingest.status, 0, ingest.stderr);
      assert.equal(ingest.json.failed.length, 0, JSON.stringify(ingest.json.failed));
      // changes.rst and license.rst only include files outside the folder: skipped with that reason, not failed.
      assert.deepEqual(ingest.json.skippedFiles.map((f: { path: string }) => basename(f.path)).sort(), ['changes.rst', 'license.rst']);
      assert.match(ingest.json.skippedFiles[0].reason, /include/);
      assert.ok(ingest.json.ingested >= 11);
      const search = await runCli(['search', 'special variables inside a for loop', '--db', db, '--k', '5', '--json']);
      const hit = search.json.hits.find((h: { text: string }) =>
        h.text.includes('Variable: loop.index0; Description: The current iteration of the loop. (0 indexed)'),
      );
      assert.ok(hit, 'the loop variables table is found');
      assert.deepEqual(hit.headingPath, ['Template Designer Documentation', 'List of Control Structures', 'For']);
      for (const h of search.json.hits) assert.doesNotMatch(h.text, /^\s*(\.\. \w|[=~^-]{4,}\s*$)|:\w+:`/m);
    } finally {
      cleanup();
    }
  });
});

describe('dossier ingest --strict', () => {
  it('a failed file leaves the exit code 0 without --strict and makes it 1 with it, naming the file', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const files = join(dir, 'notes');
      mkdirSync(files);
      writeFileSync(join(files, 'good.md'), '# Good\n\nThe pump moves 40 litres per minute.\n');
      writeFileSync(join(files, 'broken.json'), '{"not": json');
      const lenient = await runCli(['ingest', files, '--db', join(dir, 'a.db'), '--json']);
      assert.equal(lenient.status, 0, lenient.stderr);
      assert.deepEqual([lenient.json.ingested, lenient.json.failed.length], [1, 1]);
      // A dotfile beside a broken file is no document: nothing was ingested, so the exit code is 1 without --strict.
      const lone = join(dir, 'lone');
      mkdirSync(lone);
      writeFileSync(join(lone, '.gitignore'), 'dist\n');
      writeFileSync(join(lone, 'broken.json'), '{"not": json');
      const nothing = await runCli(['ingest', lone, '--db', join(dir, 'c.db')]);
      assert.equal(nothing.status, 1);
      assert.match(nothing.stderr, /^dossier: nothing was ingested; 1 failed/m);
      assert.match(nothing.stdout, /\.gitignore: skipped, hidden file/);
      const strict = await runCli(['ingest', files, '--db', join(dir, 'b.db'), '--strict']);
      assert.equal(strict.status, 1);
      assert.match(strict.stderr, /^dossier: 1 failed with --strict \(first: .*broken\.json: /m);
      assert.match(strict.stdout, /ingested 1/, 'the good file is still ingested');
      // Run again on the same index: the failed file is not parsed again, yet it still counts and still fails --strict.
      const again = await runCli(['ingest', files, '--db', join(dir, 'b.db'), '--strict']);
      assert.equal(again.status, 1);
      assert.match(again.stdout, /failed 1/);
      assert.match(again.stdout, /broken\.json: .*\(unchanged since it failed: not parsed again\)$/m);
    } finally {
      cleanup();
    }
  });
});
