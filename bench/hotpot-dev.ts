// Development loop for the offline agent on HotpotQA: questions [offset, offset+limit) only.
// Tune on the first 100 questions (--offset 0 --limit 100); report the rest and the whole file.
import { existsSync, rmSync } from 'node:fs';
import { createDossier } from '../src/dossier.ts';
import { evaluateHotpot, indexHotpot, loadHotpot } from '../src/eval/hotpotqa.ts';
import { createOfflineModel } from '../src/agent/offline/offline-model.ts';
import { argValue } from './corpus.ts';

const data = loadHotpot('../shared/data/hotpotqa/dev-500.jsonl');
const db = '.bench/hotpot.db';
if (!existsSync(db)) {
  const building = await createDossier({ db: `${db}.building` });
  await indexHotpot(building, data);
  await building.close();
  (await import('node:fs')).renameSync(`${db}.building`, db);
}
const dossier = await createDossier({ db });
const result = await evaluateHotpot(dossier, data, { model: createOfflineModel(JSON.parse(process.env.OFFLINE ?? '{}')), id: 'offline', supportsTools: true }, { offset: process.argv.includes('--offset') ? argValue('offset', 1) : 0, limit: argValue('limit', 100) });
console.log(JSON.stringify(result));
await dossier.close();
void rmSync;
