// HTTP serving latency on loopback: 200 concurrent searches, 20 concurrent offline asks, and searches
// while a ~40 MB upload is being ingested.
// Usage: npm run bench:serve -- [--chunks 20000] [--megabytes 40] [--json]
// The server runs in a child process (this file with --child) so the load generator's own work
// does not share the server's event loop: a blocked server shows as latency, not as a slow client.
import { spawn } from 'node:child_process';
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createDossier } from '../src/dossier.ts';
import { percentile } from '../src/eval/metrics.ts';
import type { Block } from '../src/ingest/types.ts';
import { startServer } from '../src/server/index.ts';
import { argValue, SyntheticText } from './corpus.ts';

const round = (value: number) => Math.round(value * 100) / 100;

if (process.argv.includes('--child')) {
  // The server side: build the corpus, serve it, print the URL, run until killed.
  const db = process.argv[process.argv.indexOf('--child') + 1];
  const chunks = argValue('chunks', 20_000);
  const dossier = await createDossier({ db });
  const text = new SyntheticText(11);
  for (let d = 0; d * 10 < chunks; d++) {
    const blocks: Block[] = [];
    for (let c = 0; c < 10 && d * 10 + c < chunks; c++)
      blocks.push({ type: 'heading', level: 2, text: `Section ${c + 1}` }, { type: 'text', text: text.paragraph() });
    await dossier.ingestRecord({ source: `synthetic:${d}`, title: text.sentence(), mediaType: 'text/plain', blocks });
  }
  // Limits high enough that the benchmark measures serving, not the rate limiter or the body cap.
  const server = await startServer({ dossier, db, port: 0, limits: { requestsPerMinute: 1_000_000, bodyBytes: 256 * 1024 * 1024 } });
  console.log(`listening on ${server.url}`);
  process.on(
    'SIGTERM',
    () =>
      void server
        .close()
        .then(() => dossier.close())
        .then(() => process.exit(0)),
  );
} else {
  const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-serve-'));
  const chunks = argValue('chunks', 20_000);
  const megabytes = argValue('megabytes', 40);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', join(dir, 'index.db'), '--chunks', String(chunks)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        const match = /^listening on (\S+)/.exec(line);
        if (match) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening`)));
    });
    let errors = 0;
    const post = async (path: string, body: unknown): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).catch(() => undefined);
      if (!response?.ok) errors++;
      await response?.arrayBuffer();
      return performance.now() - started;
    };
    const queries = new SyntheticText(99);
    for (let i = 0; i < 20; i++) await post('/v1/search', { query: queries.query(), k: 10 }); // warm caches and the vector index

    const wallStarted = performance.now();
    const searchMs = await Promise.all(Array.from({ length: 200 }, () => post('/v1/search', { query: queries.query(), k: 10 })));
    const askMs = await Promise.all(
      Array.from({ length: 20 }, () => post('/v1/ask', { question: `What does ${queries.query()} say about ${queries.query()}?` })),
    );
    const wallSeconds = (performance.now() - wallStarted) / 1000;

    // Idle baseline for sequential searches, so the during-upload figure has something to compare to.
    const idleMs: number[] = [];
    for (let i = 0; i < 50; i++) idleMs.push(await post('/v1/search', { query: queries.query(), k: 10 }));

    // A ~40 MB Markdown file: headings every few paragraphs, like a long manual.
    const text = new SyntheticText(7);
    const parts: string[] = [];
    let bytes = 0;
    for (let section = 0; bytes < megabytes * 1_000_000; section++) {
      const part = `## Section ${section}\n\n${Array.from({ length: 4 }, () => text.paragraph()).join('\n\n')}\n\n`;
      parts.push(part);
      bytes += Buffer.byteLength(part);
    }
    const bigFile = join(dir, 'manual.md');
    writeFileSync(bigFile, parts.join(''));
    parts.length = 0;
    const form = new FormData();
    form.append('file', await openAsBlob(bigFile, { type: 'text/markdown' }), 'manual.md');
    form.append('collection', 'uploads');
    const uploadStarted = performance.now();
    const accepted = await fetch(`${url}/v1/documents`, { method: 'POST', body: form });
    if (accepted.status !== 202) throw new Error(`upload refused: ${accepted.status} ${await accepted.text()}`);
    const { job } = (await accepted.json()) as { job: { id: string } };
    const duringMs: number[] = [];
    let status = 'running';
    let report: unknown;
    while (status === 'running') {
      duringMs.push(await post('/v1/search', { query: queries.query(), k: 10 }));
      const polled = (await (await fetch(`${url}/v1/jobs/${job.id}`)).json()) as {
        job: { status: string; report?: unknown; error?: string };
      };
      status = polled.job.status;
      report = polled.job.report ?? polled.job.error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const uploadSeconds = (performance.now() - uploadStarted) / 1000;
    if (status !== 'finished') throw new Error(`the upload job ${status}: ${JSON.stringify(report)}`);

    const result = {
      searchP50Ms: round(percentile(searchMs, 50)),
      searchP99Ms: round(percentile(searchMs, 99)),
      askP50Ms: round(percentile(askMs, 50)),
      askP99Ms: round(percentile(askMs, 99)),
      errors,
      requestsPerSecond: round((searchMs.length + askMs.length) / wallSeconds),
      searchDuringUploadP99Ms: round(percentile(duringMs, 99)),
      // Context for the figures above.
      chunks,
      idleSearchP99Ms: round(percentile(idleMs, 99)),
      searchDuringUploadP50Ms: round(percentile(duringMs, 50)),
      searchDuringUploadMaxMs: round(Math.max(...duringMs)),
      searchesDuringUpload: duringMs.length,
      uploadMegabytes: round(bytes / 1_000_000),
      uploadSeconds: round(uploadSeconds),
    };
    if (process.argv.includes('--json')) console.log(JSON.stringify(result));
    else
      console.log(
        Object.entries(result)
          .map(([key, value]) => `${key}: ${value}`)
          .join('\n'),
      );
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
