// Development loop for the offline agent on HotpotQA: questions [offset, offset+limit) only.
// Tune on the first 100 questions (--offset 0 --limit 100); report the rest and the whole file.
//   node --import tsx bench/hotpot-dev.ts --limit 100 [--db /tmp/hotpot.db] [--details out.jsonl]
// --data eval/hotpot-comparison-dev/questions.jsonl asks the comparison development set against the same pool.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFromEnv } from '../src/config/index.ts';
import { createDossier } from '../src/dossier.ts';
import { evaluateHotpot, indexHotpot, loadHotpot, type HotpotOutcome } from '../src/eval/hotpotqa.ts';
import { createOfflineModel } from '../src/offline-model/index.ts';
import { argValue } from './corpus.ts';

const stringArg = (name: string) => {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? undefined : process.argv[index + 1];
};
const pool = loadHotpot(join(configFromEnv().dataDir, 'hotpotqa/dev-500.jsonl'));
const data = stringArg('data') ? loadHotpot(stringArg('data')!) : pool;
const db = stringArg('db') ?? '.bench/hotpot.db';
if (!existsSync(db)) {
  const building = await createDossier({ db: `${db}.building` });
  await indexHotpot(building, pool);
  await building.close();
  renameSync(`${db}.building`, db);
}
const dossier = await createDossier({ db, readonly: true });
const outcomes: HotpotOutcome[] = [];
const result = await evaluateHotpot(
  dossier,
  data,
  { model: createOfflineModel(JSON.parse(process.env.OFFLINE ?? '{}')), id: 'offline', supportsTools: true },
  {
    offset: process.argv.includes('--offset') ? argValue('offset', 1) : 0,
    limit: argValue('limit', 100),
    onQuestion: (outcome) => outcomes.push(outcome),
  },
);
const details = stringArg('details');
if (details) writeFileSync(details, `${outcomes.map((o) => JSON.stringify(o)).join('\n')}\n`);
console.log(JSON.stringify(result));
await dossier.close();
