import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { DossierError } from '../../errors/index.ts';
import { loadPg, PG_MISSING_MESSAGE, type PgModule } from './driver.ts';

const missingPg = (error: unknown) => DossierError.isInstance(error) && error.code === 'config' && error.message === PG_MISSING_MESSAGE;

describe('loadPg', () => {
  it('loads the installed driver', async () => {
    assert.equal(typeof (await loadPg()).Pool, 'function');
  });

  it('turns pg missing into a one-line error naming the package', async () => {
    assert.equal(PG_MISSING_MESSAGE, 'PostgreSQL support needs the "pg" package: npm install pg');
    const notFound = Object.assign(new Error("Cannot find package 'pg' imported from /app/dist/store/postgres/driver.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await assert.rejects(
      loadPg(() => Promise.reject(notFound)),
      missingPg,
    );
  });

  it('names pg when Node itself cannot resolve it (a module outside any node_modules that has it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-no-pg-'));
    try {
      const probe = join(dir, 'probe.mjs');
      writeFileSync(probe, "export default (await import('pg')).default;\n");
      await assert.rejects(
        loadPg(() => import(pathToFileURL(probe).href) as Promise<{ default: PgModule }>),
        missingPg,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports any other failure as it is (a dependency of pg missing is a broken install)', async () => {
    const brokenInstall = Object.assign(new Error("Cannot find package 'pg-types' imported from /app/node_modules/pg/lib/index.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await assert.rejects(
      loadPg(() => Promise.reject(brokenInstall)),
      (error: unknown) => error === brokenInstall,
    );
  });
});

describe('pg stays unloaded for SQLite', () => {
  it('an index on a SQLite file ingests and searches without loading pg', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dossier-sqlite-only-'));
    try {
      writeFileSync(join(dir, 'note.txt'), 'Basalt forms when lava cools quickly.\n');
      const root = join(import.meta.dirname, '..', '..', '..');
      const entry = pathToFileURL(join(root, 'src', 'index.ts')).href;
      const script = `
        import { createRequire } from 'node:module';
        const { createDossier } = await import(${JSON.stringify(entry)});
        const dossier = await createDossier({ db: ${JSON.stringify(join(dir, 'index.db'))}, env: {} });
        await dossier.ingest([${JSON.stringify(join(dir, 'note.txt'))}]);
        const hits = await dossier.search({ query: 'basalt lava' });
        await dossier.close();
        const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => /[\\\\/]node_modules[\\\\/]pg[\\\\/]/.test(file));
        console.log(JSON.stringify({ hits: hits.length, loaded }));
      `;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        encoding: 'utf8',
        cwd: root,
        timeout: 120_000,
      });
      assert.equal(child.status, 0, child.stderr);
      const result = JSON.parse(child.stdout.trim().split('\n').pop()!) as { hits: number; loaded: string[] };
      assert.ok(result.hits > 0, 'the SQLite index answered');
      assert.deepEqual(result.loaded, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
