/** Which files an ingest reads (each once, through links and loops) and the progress it reports. */
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createDossier } from '../dossier.ts';
import { tempDir } from '../../test/helpers.ts';
import { expandInputs, type IngestProgress } from './pipeline.ts';

describe('ingest inputs', () => {
  it('finds each file once through file links, hard links, folder links and loops', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const docs = join(dir, 'docs');
      mkdirSync(join(docs, 'real'), { recursive: true });
      writeFileSync(join(docs, 'real', 'a.md'), '# A');
      symlinkSync(join(docs, 'real'), join(docs, 'a-link')); // sorts first: its files are seen through the link first
      symlinkSync(join(docs, 'real', 'a.md'), join(docs, 'copy.md'));
      linkSync(join(docs, 'real', 'a.md'), join(docs, 'z-hard.md')); // same inode, found after the real path
      symlinkSync(docs, join(docs, 'real', 'up')); // a loop
      const failed: { path: string; error: string }[] = [];
      const found = await expandInputs([docs, join(docs, 'copy.md'), `${docs}/**/*.md`], failed);
      assert.deepEqual(failed, []);
      assert.deepEqual(
        found.map((file) => file.path),
        [join(docs, 'real', 'a.md')],
        'one file, under its real path',
      );
      assert.equal(found[0].size, statSync(join(docs, 'real', 'a.md')).size);
    } finally {
      cleanup();
    }
  });

  it('reports bytes done and total alongside files', async () => {
    const { dir, cleanup } = tempDir();
    try {
      const files = join(dir, 'files');
      mkdirSync(files);
      const sizes = [1000, 3000, 6000];
      sizes.forEach((size, i) => writeFileSync(join(files, `f${i}.txt`), 'word '.repeat(size / 5)));
      const dossier = await createDossier({ db: join(dir, 'index.db') });
      const events: IngestProgress[] = [];
      await dossier.ingest([files], { onProgress: (progress) => events.push(progress) });
      await dossier.close();
      assert.ok(events.every((event) => event.bytesTotal === 10_000 && event.total === 3));
      assert.deepEqual(
        events.map((event) => [event.done, event.bytesDone]),
        [
          [0, 0],
          [1, 1000],
          [2, 4000],
          [3, 10_000],
        ],
      );
    } finally {
      cleanup();
    }
  });
});
