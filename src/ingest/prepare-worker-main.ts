import { parentPort } from 'node:worker_threads';
import { DossierError, oneLine } from '../errors/index.ts';
import { prepareFile, type PrepareFileTask } from './prepare.ts';
import { isRetryable } from './retryable.ts';

const cache = {};
parentPort!.on('message', async (message: { id: number; task: PrepareFileTask }) => {
  try {
    const prepared = await prepareFile(message.task, cache);
    const transfer = ('vectors' in prepared ? (prepared.vectors ?? []) : []).map((vector) => vector.buffer as ArrayBuffer);
    parentPort!.postMessage({ id: message.id, ok: true, prepared }, transfer);
  } catch (error) {
    parentPort!.postMessage({
      id: message.id,
      ok: false,
      code: DossierError.isInstance(error) ? error.code : 'parse-failed',
      error: oneLine(error),
      retryable: isRetryable(error),
    });
  }
});
