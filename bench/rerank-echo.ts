// The reranking plumbing changes nothing: SciFact test and HotpotQA, each run twice through the same
// evaluation code as `dossier eval beir` / `dossier eval hotpotqa`, once without a reranker and once
// with `--reranker cohere-compatible:echo` against the protocol test server speaking Cohere's rerank
// API, which echoes the order it is sent. Every search goes over HTTP to the reranker and back; the
// figures must come out identical.
//   node --import tsx bench/rerank-echo.ts [--scifact-db /tmp/sf.db] [--hotpot-db .bench/hotpot.db]
//     [--limit 100] [--modes hybrid,fulltext,vector] [--skip-hotpot] [--skip-scifact]
// HotpotQA runs its development part (questions 0–99 by default, --limit N): the held-out part is not
// run for this.
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { configFromEnv } from '../src/config/index.ts';
import { runBeirEval, runHotpotEval } from '../src/eval/index.ts';
import type { SearchMode } from '../src/retrieve/search.ts';
import { startCohereServer } from '../src/testing/protocol-server/cohere.ts';
import { argValue } from './corpus.ts';

const stringArg = (name: string) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
};
const dataDir = configFromEnv().dataDir;
const modes = (stringArg('modes') ?? 'hybrid,fulltext,vector').split(',') as SearchMode[];
const limit = argValue('limit', 100);
const server = await startCohereServer();
const echo = { reranker: 'cohere-compatible:echo', env: { ...process.env, DOSSIER_RERANKER_BASE_URL: server.baseURL } };
const plain = { env: { ...process.env, DOSSIER_RERANKER: 'none' } };

/** How many rerank requests a run made, and how many documents each carried on average. */
function traffic() {
  const requests = server.rerank.requests.length;
  const documents = server.rerank.requests.reduce(
    (sum, request) => sum + ((request.body as { documents?: unknown[] }).documents?.length ?? 0),
    0,
  );
  server.reset();
  return { rerankRequests: requests, documentsPerRequest: requests ? Math.round((documents / requests) * 10) / 10 : 0 };
}

const report: Record<string, unknown> = {};
try {
  if (!process.argv.includes('--skip-scifact')) {
    const directory = join(dataDir, 'beir-scifact');
    const db = stringArg('scifact-db') ?? '/tmp/sf.db';
    for (const mode of modes) {
      const run = async (options: typeof echo | typeof plain) => {
        const { p50Ms, p99Ms, ...figures } = await runBeirEval({ directory, split: 'test', mode, db, ...options });
        return { figures, ms: { p50: p50Ms, p99: p99Ms }, ...traffic() };
      };
      const without = await run(plain);
      const withEcho = await run(echo);
      report[`scifact-${mode}`] = { identical: isDeepStrictEqual(without.figures, withEcho.figures), without, withEcho };
      console.error(JSON.stringify({ [`scifact-${mode}`]: report[`scifact-${mode}`] }));
    }
  }
  if (!process.argv.includes('--skip-hotpot')) {
    const file = join(dataDir, 'hotpotqa/dev-500.jsonl');
    const db = stringArg('hotpot-db') ?? '.bench/hotpot.db';
    const run = async (options: typeof echo | typeof plain) => {
      const result = await runHotpotEval({ file, limit, offset: 0, db, ...options });
      const { secondsMean, ...agent } = result.agent;
      return { figures: { questions: result.questions, singleShot: result.singleShot, agent }, secondsMean, ...traffic() };
    };
    const without = await run(plain);
    const withEcho = await run(echo);
    report[`hotpotqa-0-${limit - 1}`] = { identical: isDeepStrictEqual(without.figures, withEcho.figures), without, withEcho };
  }
} finally {
  await server.close();
}
console.log(JSON.stringify(report, null, 2));
