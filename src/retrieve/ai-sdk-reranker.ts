import { rerank, type RerankingModel } from 'ai';
import { DossierError } from '../errors/index.ts';
import { failureError, isRetryable, retryDelayMs, sleep } from '../providers/call-model.ts';
import type { RerankerSettings } from '../providers/types.ts';
import type { RerankedIndex, Reranker } from './reranker.ts';

/** An AI SDK reranking model object (a bare gateway string names no provider we could configure). */
export type AiSdkRerankingModel = Exclude<RerankingModel, string>;

export interface AiSdkRerankerOptions extends RerankerSettings {
  /** Provider name in `id` and messages; defaults to the model's provider without ".reranking". */
  provider?: string;
}

export const RERANKER_DEFAULTS = { maxRetries: 2, timeoutMs: 30_000 };

/**
 * A Reranker over any AI SDK reranking model (`cohere.reranking(id)`, a Cohere-compatible server,
 * Bedrock's models, …), called through the SDK's `rerank()`. Retries are ours, as for chat models
 * (providers/call-model.ts): a refused connection, an unknown host and 401/403 are not retried.
 * Failures are one-line DossierErrors (`remote-auth`, `remote-unreachable`, `remote-timeout`,
 * `remote-failed`) naming the reranker; an answer naming documents that were not sent is refused.
 */
export class AiSdkReranker implements Reranker {
  readonly id: string;
  private readonly settings: Required<RerankerSettings>;

  constructor(
    private readonly model: AiSdkRerankingModel,
    options: AiSdkRerankerOptions = {},
  ) {
    this.id = `${options.provider ?? model.provider.replace(/\.reranking$/, '')}:${model.modelId}`;
    this.settings = {
      maxRetries: options.maxRetries ?? RERANKER_DEFAULTS.maxRetries,
      timeoutMs: options.timeoutMs ?? RERANKER_DEFAULTS.timeoutMs,
    };
  }

  async rerank(query: string, documents: readonly string[], options: { signal?: AbortSignal } = {}): Promise<RerankedIndex[]> {
    const caller = options.signal;
    caller?.throwIfAborted();
    if (documents.length === 0) return [];
    const label = `reranker ${this.id}`;
    const { timeoutMs, maxRetries } = this.settings;
    const deadline = Date.now() + timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
    const signal = caller ? AbortSignal.any([caller, timeout.signal]) : timeout.signal;
    const failures: unknown[] = [];
    const stopped = () => {
      if (caller?.aborted) return caller.reason;
      if (timeout.signal.aborted) return new DossierError('remote-timeout', `${label} timed out after ${timeoutMs} ms`);
      return undefined;
    };
    try {
      for (;;) {
        try {
          const result = await rerank({ model: this.model, query, documents: [...documents], maxRetries: 0, abortSignal: signal });
          return checked(
            result.ranking.map(({ originalIndex, score }) => ({ index: originalIndex, score })),
            documents.length,
            label,
          );
        } catch (error) {
          const stop = stopped();
          if (stop !== undefined) throw stop;
          if (DossierError.isInstance(error)) throw error;
          failures.push(error);
        }
        const wait = retryDelayMs(failures.at(-1), failures.length - 1);
        if (failures.length > maxRetries || !isRetryable(failures.at(-1)) || Date.now() + wait >= deadline) break;
        await sleep(wait, signal).catch(() => {
          throw stopped();
        });
      }
    } finally {
      clearTimeout(timer);
    }
    throw failureError(failures, label);
  }
}

/** Each index once and in range; scores are numbers. */
function checked(ranking: RerankedIndex[], count: number, label: string): RerankedIndex[] {
  const seen = new Set<number>();
  for (const { index, score } of ranking) {
    if (!Number.isInteger(index) || index < 0 || index >= count)
      throw new DossierError('remote-failed', `${label} failed: it ranked document ${index}, but only ${count} were sent`);
    if (seen.has(index)) throw new DossierError('remote-failed', `${label} failed: it ranked document ${index} twice`);
    if (typeof score !== 'number' || !Number.isFinite(score))
      throw new DossierError('remote-failed', `${label} failed: document ${index} came back without a numeric score`);
    seen.add(index);
  }
  return ranking;
}
