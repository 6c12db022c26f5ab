// Agent overhead per step, excluding model time, over the generated 100k-chunk corpus of bench:query.
// A scripted in-process model issues one search per step (as a typical LLM does) for 4 steps, then
// answers citing what it saw; overhead = step wall time − time inside the model call.
// Usage: npm run -s bench:agent -- [--chunks 100000] [--runs 50] [--json]   (build the corpus first with bench:query)
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createDossier } from '../src/dossier.ts';
import type { AgentEvent } from '../src/protocol/events.ts';
import { runAgent } from '../src/agent/run-agent.ts';
import { ReplayModel } from '../src/agent/trace.ts';
import { createOfflineModel } from '../src/offline-model/index.ts';
import { percentile } from '../src/eval/metrics.ts';
import { argValue, SyntheticText } from './corpus.ts';

const chunks = argValue('chunks', 100_000);
const runs = argValue('runs', 50);
const db = join('.bench', `query-${chunks}.db`);
if (!existsSync(db)) throw new Error(`${db} is missing: run "npm run -s bench:query -- --chunks ${chunks}" first to build it`);
const dossier = await createDossier({ db });
const text = new SyntheticText(5);

function stepOverheads(events: AgentEvent[]): number[] {
  // Step spans: from one step-start to the next (or to run-finish); subtract the model's own time.
  const out: number[] = [];
  let start: number | undefined;
  let model = 0;
  for (const event of events as (AgentEvent & { at: number })[]) {
    if (event.type === 'step-start' || event.type === 'run-finish') {
      if (start !== undefined) out.push(event.at - start - model);
      start = event.at;
      model = 0;
    } else if (event.type === 'model-output') model += event.ms;
  }
  return out;
}

async function measure(
  makeModel: () => { model: ReturnType<typeof createOfflineModel> | ReplayModel; id: string },
): Promise<{ p50: number; p99: number; steps: number }> {
  const all: number[] = [];
  for (let i = 0; i < runs; i++) {
    const events: (AgentEvent & { at: number })[] = [];
    const { model, id } = makeModel();
    await runAgent({
      knowledge: dossier,
      question: text.query(),
      model: { model, id, supportsTools: true },
      onEvent: (e) => events.push({ ...e, at: performance.now() }),
    });
    all.push(...stepOverheads(events));
  }
  const round = (v: number) => Math.round(v * 100) / 100;
  return { p50: round(percentile(all, 50)), p99: round(percentile(all, 99)), steps: all.length };
}

const scripted = () => {
  const queries = [text.query(), text.query(), text.query(), text.query()];
  const turns = queries.map((query, i) => ({
    text: '',
    toolCalls: [{ toolCallId: `c${i}`, toolName: 'search_knowledge', input: { query } }],
    usage: { inputTokens: 0, outputTokens: 0 },
  }));
  turns.push({ text: 'Answer [E1] [E2].', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 } });
  return { model: new ReplayModel(turns), id: 'scripted' };
};
await dossier.search({ query: text.query(), k: 10 }); // loads the vector index once, as a long-running server would have
const oneSearchPerStep = await measure(scripted);
const offline = await measure(() => ({ model: createOfflineModel(), id: 'offline' }));
await dossier.close();
const result = {
  chunks,
  runs,
  oneSearchPerStep: { p50Ms: oneSearchPerStep.p50, p99Ms: oneSearchPerStep.p99, steps: oneSearchPerStep.steps },
  offlineModel: { p50Ms: offline.p50, p99Ms: offline.p99, steps: offline.steps },
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result));
else
  console.log(
    `agent overhead per step at ${chunks} chunks (model time excluded): one search/step p50 ${result.oneSearchPerStep.p50Ms} ms, p99 ${result.oneSearchPerStep.p99Ms} ms; offline model (up to 8 searches/step) p50 ${result.offlineModel.p50Ms} ms`,
  );
