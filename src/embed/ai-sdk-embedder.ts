import { APICallError, embedMany, type EmbeddingModel } from 'ai';
import { DossierError, oneLine } from '../errors/index.ts';
import { l2normalize, type Embedder } from './embedder.ts';

/** An AI SDK embedding model object (a bare gateway string has no provider we could name). */
export type AiSdkEmbeddingModel = Exclude<EmbeddingModel, string>;

export interface AiSdkEmbedderOptions {
  /** Provider name used in `id` and error messages; defaults to the model's provider without ".embedding". */
  provider?: string;
  /** Vector length; when omitted, `create` discovers it by embedding one probe text. */
  dimensions?: number;
  /** Most texts sent in one request (default 96). The model's own per-call limit may split further. */
  maxBatchSize?: number;
  /** Most batches in flight at once (default 2). */
  concurrency?: number;
  /** Retries per batch after the first attempt, on 429, 5xx, network errors and timeouts (default 4). */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with jitter (default 500 ms). */
  initialBackoffMs?: number;
  /** Upper bound for one backoff or Retry-After wait (default 30 s). */
  maxBackoffMs?: number;
  /** Per-request timeout; a timed-out request counts as a retryable failure (default 60 s). */
  timeoutMs?: number;
  /** Jitter source in [0, 1); injectable so tests can be exact. */
  random?: () => number;
}

const DEFAULTS = {
  maxBatchSize: 96,
  concurrency: 2,
  maxRetries: 4,
  initialBackoffMs: 500,
  maxBackoffMs: 30_000,
  timeoutMs: 60_000,
};

const PROBE_TEXT = 'dimension probe';

/** Why one attempt failed, reduced to what the retry loop and the final message need. */
interface AttemptFailure {
  retryable: boolean;
  /** One-line description naming the HTTP status when there was one. */
  detail: string;
  retryAfterMs?: number;
  cause: unknown;
}

/**
 * Embedder over any AI SDK embedding model. Retries are done here (the SDK's own are switched off)
 * so the policy is explicit and testable: batching, a bound on in-flight batches, exponential backoff
 * with jitter honouring Retry-After, a per-request timeout and cancellation.
 */
export class AiSdkEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly provider: string;
  readonly modelId: string;
  private readonly model: AiSdkEmbeddingModel;
  private readonly settings: typeof DEFAULTS & { random: () => number };

  /** Needs known dimensions; use `create` to discover them. */
  constructor(model: AiSdkEmbeddingModel, options: AiSdkEmbedderOptions & { dimensions: number }) {
    this.model = model;
    this.provider = options.provider ?? model.provider.replace(/\.embedding$/, '');
    this.modelId = model.modelId;
    this.id = `${this.provider}:${this.modelId}`;
    this.dimensions = options.dimensions;
    this.settings = {
      maxBatchSize: positiveInt(options.maxBatchSize, DEFAULTS.maxBatchSize, 'maxBatchSize'),
      concurrency: positiveInt(options.concurrency, DEFAULTS.concurrency, 'concurrency'),
      maxRetries: nonNegativeInt(options.maxRetries, DEFAULTS.maxRetries, 'maxRetries'),
      initialBackoffMs: options.initialBackoffMs ?? DEFAULTS.initialBackoffMs,
      maxBackoffMs: options.maxBackoffMs ?? DEFAULTS.maxBackoffMs,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      random: options.random ?? Math.random,
    };
  }

  /** Builds the embedder, embedding one probe text when `dimensions` is not given. */
  static async create(model: AiSdkEmbeddingModel, options: AiSdkEmbedderOptions & { signal?: AbortSignal } = {}): Promise<AiSdkEmbedder> {
    if (options.dimensions !== undefined) {
      return new AiSdkEmbedder(model, { ...options, dimensions: positiveInt(options.dimensions, 0, 'dimensions') });
    }
    // dimensions 0 = "not yet known": the probe's vector length is accepted as is.
    const probe = new AiSdkEmbedder(model, { ...options, dimensions: 0 });
    const [vector] = await probe.embedBatch([PROBE_TEXT], options.signal);
    if (!vector || vector.length === 0) {
      throw new DossierError('remote-failed', `${probe.id}: probe embedding came back empty, cannot tell the dimensions`);
    }
    return new AiSdkEmbedder(model, { ...options, dimensions: vector.length });
  }

  async embed(texts: string[], options: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const { signal } = options;
    signal?.throwIfAborted();
    if (texts.length === 0) return [];

    const batches: string[][] = [];
    for (let i = 0; i < texts.length; i += this.settings.maxBatchSize) {
      batches.push(texts.slice(i, i + this.settings.maxBatchSize));
    }
    const results: Float32Array[][] = new Array(batches.length);

    // One failed batch cancels its siblings: there is no use for a partial result.
    const siblings = new AbortController();
    const combined = signal ? AbortSignal.any([signal, siblings.signal]) : siblings.signal;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches.length && !combined.aborted) {
        const index = next++;
        results[index] = await this.embedBatch(batches[index], combined);
      }
    };
    const workers = Array.from({ length: Math.min(this.settings.concurrency, batches.length) }, () =>
      worker().catch((error: unknown) => {
        siblings.abort(error);
        throw error;
      }),
    );
    const settled = await Promise.allSettled(workers);
    // The caller's abort wins over whatever error it caused in flight.
    signal?.throwIfAborted();
    const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure) throw failure.reason;
    return results.flat();
  }

  async embedQuery(text: string, options: { signal?: AbortSignal } = {}): Promise<Float32Array> {
    const [vector] = await this.embed([text], options);
    return vector;
  }

  /** One batch, with retries; checks the count and length of what came back. */
  private async embedBatch(values: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const { maxRetries } = this.settings;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      let embeddings: number[][];
      try {
        embeddings = await this.attempt(values, signal);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const failure = error as AttemptFailure;
        if (!failure.retryable || attempt >= maxRetries) {
          const tries = attempt + 1;
          const suffix = failure.retryable ? ` (gave up after ${tries} attempt${tries === 1 ? '' : 's'})` : '';
          throw new DossierError('remote-failed', oneLine(`${this.id} embeddings failed: ${failure.detail}${suffix}`), {
            cause: failure.cause,
          });
        }
        await sleep(this.backoffMs(attempt, failure.retryAfterMs), signal);
        continue;
      }
      return this.toVectors(values, embeddings);
    }
  }

  /** One HTTP request under its own timeout; rejects with an AttemptFailure or the caller's abort reason. */
  private async attempt(values: string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new Error('timeout')), this.settings.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
    try {
      const result = await embedMany({
        model: this.model,
        values,
        maxRetries: 0,
        maxParallelCalls: 1,
        abortSignal: combined,
      });
      return result.embeddings;
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.signal.aborted) {
        throw { retryable: true, detail: `no response within ${this.settings.timeoutMs} ms`, cause: error } satisfies AttemptFailure;
      }
      throw classify(error);
    } finally {
      clearTimeout(timer);
    }
  }

  private toVectors(values: string[], embeddings: number[][]): Float32Array[] {
    if (embeddings.length !== values.length) {
      throw new DossierError(
        'remote-failed',
        `${this.id} embeddings failed: got ${embeddings.length} embeddings for ${values.length} texts`,
      );
    }
    return embeddings.map((embedding) => {
      if (this.dimensions !== 0 && embedding.length !== this.dimensions) {
        throw new DossierError(
          'remote-failed',
          `${this.id} embeddings failed: got a vector of ${embedding.length} dimensions, expected ${this.dimensions}`,
        );
      }
      return l2normalize(Float32Array.from(embedding));
    });
  }

  /** Exponential backoff with "equal jitter" (half fixed, half random); Retry-After raises the floor. */
  private backoffMs(attempt: number, retryAfterMs: number | undefined): number {
    const { initialBackoffMs, maxBackoffMs, random } = this.settings;
    const exponential = Math.min(maxBackoffMs, initialBackoffMs * 2 ** attempt);
    const jittered = exponential / 2 + (random() * exponential) / 2;
    return Math.min(maxBackoffMs, Math.max(jittered, retryAfterMs ?? 0));
  }
}

/** Sorts an SDK error into retryable (429, 5xx, network) or final, with a one-line detail. */
function classify(error: unknown): AttemptFailure {
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === undefined) {
      // The SDK wraps connection failures as APICallError without a status.
      return { retryable: error.isRetryable, detail: `network error: ${error.message}`, cause: error };
    }
    return {
      retryable: status === 429 || status >= 500,
      detail: `HTTP ${status}: ${error.message}`,
      retryAfterMs: parseRetryAfter(error.responseHeaders),
      cause: error,
    };
  }
  if (error instanceof TypeError && /fetch failed|network|socket/i.test(error.message)) {
    return { retryable: true, detail: `network error: ${error.message}`, cause: error };
  }
  if (DossierError.isInstance(error)) return { retryable: false, detail: error.message, cause: error };
  return { retryable: false, detail: error instanceof Error ? error.message : String(error), cause: error };
}

/** Retry-After as seconds or an HTTP date, or OpenAI's retry-after-ms; undefined when absent or nonsense. */
export function parseRetryAfter(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const lower: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) lower[key.toLowerCase()] = value;
  const ms = Number.parseFloat(lower['retry-after-ms'] ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value.trim());
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function positiveInt(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result < 1) throw new DossierError('config', `${name} must be a positive integer, got ${value}`);
  return result;
}

function nonNegativeInt(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isInteger(result) || result < 0) throw new DossierError('config', `${name} must be a non-negative integer, got ${value}`);
  return result;
}
