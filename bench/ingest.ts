// Ingestion throughput of plain text: parse + chunk + tokenize + offline embedding + indexing, on this machine.
// Usage: npm run bench:ingest -- [--megabytes 40] [--graph] [--json]
// --graph also builds the knowledge graph afterwards (offline extraction) and reports its time and MB/s.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDossier } from '../src/dossier.ts';
import { processIo, progressBar } from '../src/cli/io.ts';
import { argValue, SyntheticText } from './corpus.ts';

const megabytes = argValue('megabytes', 40);
const dir = mkdtempSync(join(tmpdir(), 'dossier-bench-ingest-'));
try {
  const text = new SyntheticText(7);
  const files = join(dir, 'files');
  mkdirSync(files);
  let bytes = 0;
  let count = 0;
  while (bytes < megabytes * 1_000_000) {
    const body = Array.from({ length: 40 }, () => text.paragraph()).join('\n\n'); // ~40 KB, about a 10-page report
    writeFileSync(join(files, `doc-${String(count++).padStart(5, '0')}.txt`), body);
    bytes += Buffer.byteLength(body);
  }
  const dossier = await createDossier({ db: join(dir, 'index.db') });
  const bar = await progressBar(processIo(), 'ingest');
  const started = performance.now();
  const report = await dossier.ingest([files], { onProgress: ({ done, total }) => bar.update(done, total) });
  const seconds = (performance.now() - started) / 1000;
  bar.stop();
  const graph = process.argv.includes('--graph') ? await dossier.graph.build() : undefined;
  await dossier.close();
  if (report.failed.length) throw new Error(`${report.failed.length} files failed: ${report.failed[0].error}`);
  const result = {
    megabytesPerSecond: Math.round((bytes / 1_000_000 / seconds) * 100) / 100,
    megabytes: Math.round(bytes / 10_000) / 100,
    documents: report.documents,
    chunks: report.chunks,
    seconds: Math.round(seconds * 100) / 100,
    ...(graph
      ? {
          graph: {
            seconds: Math.round(graph.seconds * 100) / 100,
            megabytesPerSecond: Math.round((bytes / 1_000_000 / graph.seconds) * 100) / 100,
            entities: graph.entities,
            relationships: graph.relationships,
            communities: graph.communities,
          },
        }
      : {}),
  };
  if (process.argv.includes('--json')) console.log(JSON.stringify(result));
  else
    console.log(
      `ingested ${result.megabytes} MB (${result.documents} documents, ${result.chunks} chunks) in ${result.seconds}s: ${result.megabytesPerSecond} MB/s` +
        (result.graph
          ? `; graph built in ${result.graph.seconds}s: ${result.graph.megabytesPerSecond} MB/s, ${result.graph.entities} entities`
          : ''),
    );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
