/**
 * The published package works outside this repository: `npm pack`, install the tarball into a fresh
 * project, use it from plain `node` (no tsx) and type-check a strict consumer against its .d.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { after, before, describe, test } from 'node:test';

const REPO = resolve(import.meta.dirname, '..');
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
/** What `npm pack` needs from the working tree (uncommitted changes included). */
const PACK_INPUTS = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts',
  'src',
  'bin',
  'eval/regression',
  'README.md',
  'LICENSE',
];

let work: string;
let project: string;
let packedFiles: string[];

function run(command: string, args: string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 });
  assert.equal(result.status, 0, `${command} ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** A one-page PDF whose page says `text`, with a correct xref table. */
function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 12 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((body, i) => {
    const offset = pdf.length;
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
    return offset;
  });
  const xref = pdf.length;
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, 'latin1');
}

describe('the npm package', { timeout: 180_000 }, () => {
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'dossier-package-'));

    // Pack a copy of the working tree, not the repo itself: `prepare` rebuilds dist/ from scratch,
    // which must not pull dist/ from under CLI tests running concurrently. The copy borrows the
    // repo's node_modules through one symlink; pack and tsc only read it.
    const source = join(work, 'source');
    for (const entry of PACK_INPUTS) cpSync(join(REPO, entry), join(source, entry), { recursive: true });
    symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], source)) as {
      filename: string;
      files: { path: string }[];
    }[];
    packedFiles = packed.files.map((file) => file.path);

    // The consumer gets a real npm install of the tarball. Its dependencies are COPIES of the repo's
    // production dependencies (npm ls --omit=dev), made before the install so npm finds them satisfied
    // and works offline, without running install scripts (better-sqlite3 would compile for minutes).
    // Copies, never symlinks: npm prunes and rewrites node_modules, and must not reach into the repo's.
    // Dev-only packages (tsx, typescript) are absent, so a stray import of one fails here.
    project = join(work, 'consumer');
    const modules = join(project, 'node_modules');
    mkdirSync(modules, { recursive: true });
    // Not run(): npm ls exits 1 over an extraneous package in a dev checkout, yet still lists the tree.
    const production = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: REPO, encoding: 'utf8' })
      .stdout.split('\n')
      .map((line) => relative(join(REPO, 'node_modules'), line))
      .filter((name) => name && !name.startsWith('..') && !name.includes(`${sep}node_modules${sep}`));
    for (const name of [...production, '@types/node', 'undici-types']) {
      cpSync(join(REPO, 'node_modules', name), join(modules, name), { recursive: true });
    }
    const typesNode = JSON.parse(readFileSync(join(REPO, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string };
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module', devDependencies: { '@types/node': typesNode.version } }),
    );
    run(
      'npm',
      ['install', join(work, packed.filename), '--offline', '--ignore-scripts', '--no-package-lock', '--no-audit', '--no-fund'],
      project,
    );
  });

  after(() => rmSync(work, { recursive: true, force: true }));

  test('ships the build, the bin, the regression set, README and LICENSE, and nothing else', () => {
    for (const file of [
      'LICENSE',
      'README.md',
      'bin/dossier.js',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/testing.js',
      'dist/testing.d.ts',
      'dist/cli/main.js',
      'dist/ingest/prepare-worker-main.js',
      'dist/ingest/parsers/pdf-worker.mjs',
      'dist/ingest/ocr/tesseract-worker.cjs',
    ]) {
      assert.ok(packedFiles.includes(file), `${file} is packed`);
    }
    const stray = packedFiles.filter(
      (file) => !/^(dist\/|bin\/|eval\/regression\/|LICENSE$|README\.md$|package\.json$)/.test(file) || /\.test\.|test-data/.test(file),
    );
    assert.deepEqual(stray, []);
    // tsx is a dev dependency: nothing shipped may need it. The one mention is the optional loader
    // for TypeScript user tools, tried only when such a file fails to load (and a clear error without it).
    const installed = join(project, 'node_modules', 'dossier');
    const tsxUsers = packedFiles.filter(
      (file) => /\.m?js$/.test(file) && /\bfrom ['"]tsx|import\(['"]tsx/.test(readFileSync(join(installed, file), 'utf8')),
    );
    assert.deepEqual(tsxUsers, ['dist/agent/tools/registry.js']);
  });

  test('plain node ingests (worker threads, the PDF worker and OCR from dist), searches and answers; so does the bin', async () => {
    const corpus = join(project, 'corpus');
    mkdirSync(corpus);
    // Eight files or more: ingestion runs in the worker pool, which must load the built worker.
    const topics = ['orchards', 'glaciers', 'bridges', 'violins', 'comets', 'tides', 'ferns'];
    for (const topic of topics)
      writeFileSync(join(corpus, `${topic}.md`), `# About ${topic}\n\nThis note is about ${topic} and nothing else.\n`);
    writeFileSync(
      join(corpus, 'lighthouse.md'),
      '# The harbour lighthouse\n\nThe harbour lighthouse was built in 1871. Its lamp can be seen from 18 nautical miles away.\n',
    );
    writeFileSync(join(corpus, 'observatory.pdf'), tinyPdf('The observatory telescope has a mirror of 2.4 metres.'));
    // An image: tesseract.js, its wasm core and the English weights load from the consumer's node_modules.
    const { createCanvas, GlobalFonts } = await import('@napi-rs/canvas');
    const withImage = GlobalFonts.families.length > 0;
    if (withImage) {
      const canvas = createCanvas(900, 120);
      const context = canvas.getContext('2d');
      context.fillStyle = 'white';
      context.fillRect(0, 0, 900, 120);
      context.fillStyle = 'black';
      context.font = '40px sans-serif';
      context.fillText('The planetarium dome seats ninety people', 20, 75);
      writeFileSync(join(corpus, 'planetarium.png'), canvas.encodeSync('png'));
    }
    writeFileSync(
      join(project, 'run.mjs'),
      `import { createDossier } from 'dossier';
import { storeContract } from 'dossier/testing';
const dossier = await createDossier({ db: process.argv[2] });
const report = await dossier.ingest([process.argv[3]]);
const hits = await dossier.search({ query: 'lighthouse lamp nautical miles', mode: 'hybrid', k: 3 });
const pdfHits = await dossier.search({ query: 'observatory telescope mirror', mode: 'hybrid', k: 3 });
const imageHits = await dossier.search({ query: 'planetarium dome seats', mode: 'fulltext', k: 1 });
const result = await dossier.ask({ question: 'How far away can the harbour lighthouse lamp be seen?' });
await dossier.close();
console.log(JSON.stringify({ report, hits: hits.map((h) => h.source), pdfHits: pdfHits.map((h) => h.source), imageHits: imageHits.map((h) => h.source), answer: result.answer, citations: result.citations, finishReason: result.finishReason, storeContract: typeof storeContract }));
`,
    );
    const out = JSON.parse(run(process.execPath, ['run.mjs', join(work, 'index.db'), corpus], project));
    assert.equal(out.report.ingested, withImage ? 10 : 9, JSON.stringify(out.report));
    assert.deepEqual(out.report.failed, []);
    if (withImage) assert.match(out.imageHits[0], /planetarium\.png$/);
    assert.match(out.hits[0], /lighthouse\.md$/);
    assert.match(out.pdfHits[0], /observatory\.pdf$/);
    assert.match(out.answer, /\[E\d+\]/);
    assert.match(out.answer, /18 nautical miles/);
    assert.ok(out.citations.some((c: { source: string }) => c.source.endsWith('lighthouse.md')));
    assert.equal(out.finishReason, 'stop');
    assert.equal(out.storeContract, 'function');

    // The installed bin runs the built CLI on the same index.
    const bin = join(project, 'node_modules', '.bin', 'dossier');
    const search = JSON.parse(run(process.execPath, [bin, 'search', 'lighthouse lamp', '--db', join(work, 'index.db'), '--json'], project));
    assert.match(JSON.stringify(search), /lighthouse\.md/);

    // Without tsx (a dev dependency), a TypeScript user tool is a clear one-line error; a .mjs one loads.
    const tools = join(project, 'tools');
    mkdirSync(tools);
    writeFileSync(
      join(tools, 'shout.ts'),
      "export default { name: 'shout', description: 'x', inputSchema: null as any, execute: async () => ({}) };\n",
    );
    const refused = spawnSync(process.execPath, [bin, 'ask', 'x', '--db', join(work, 'index.db'), '--tools', tools], {
      cwd: project,
      encoding: 'utf8',
    });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /^dossier: tool file .*shout\.ts is TypeScript, which Node .* cannot load: install tsx beside Dossier/);
  });

  test('a strict TypeScript consumer type-checks with skipLibCheck off', () => {
    writeFileSync(
      join(project, 'consumer.ts'),
      `import { createDossier, DossierError, resolveModel, runAgent, type AgentResult, type AskResult, type Embedder, type FinishReason, type IngestReport, type SearchHit, type Store } from 'dossier';
import { embedderContract, parserContract, startOpenAIServer, storeContract, type OpenAIServer } from 'dossier/testing';

const dossier = await createDossier({ db: ':memory:' });
const report: IngestReport = await dossier.ingest(['docs']);
const hits: SearchHit[] = await dossier.search({ query: 'hybrid search', mode: 'hybrid', k: 5 });
const result: AgentResult = await runAgent({ knowledge: dossier, question: 'What is it?', model: await resolveModel('offline') });
const asked: AskResult = await dossier.ask({ question: 'What is it?', collections: ['default'], maxSteps: 3 });
const failure: { code: string; message: string } | undefined = asked.error;
const reason: FinishReason = result.finishReason;
const ids: string[] = result.citations.map((citation) => citation.id);
const error: unknown = new Error('x');
if (DossierError.isInstance(error)) console.log(error.code);
const embedder: Embedder = dossier.embedder;
const store: Store = dossier.store;
const server: OpenAIServer = await startOpenAIServer();
const suites: Function[] = [storeContract, embedderContract, parserContract];
console.log(report.ingested, hits.length, reason, ids, failure, embedder.dimensions, store, server.url, suites);
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
        },
        files: ['consumer.ts'],
      }),
    );
    const result = spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8' });
    assert.equal(result.status, 0, `tsc found errors:\n${result.stdout}${result.stderr}`);
  });
});
