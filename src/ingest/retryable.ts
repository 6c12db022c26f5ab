/**
 * Failures that say nothing about the file (a reader that crashed or ran out of time, an OCR engine
 * that would not start) are marked, so ingestion does not remember them against the file's content
 * hash: the next run tries the file again. Every other parse failure is the file's own.
 */
const RETRYABLE = 'retryable';

export function retryable<E extends Error>(error: E): E {
  Object.defineProperty(error, RETRYABLE, { value: true, enumerable: false });
  return error;
}

export function isRetryable(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as Record<string, unknown>)[RETRYABLE] === true;
}
