/**
 * Every error Dossier raises on purpose is a DossierError with a stable `code`.
 * `isInstance` uses a marker symbol so checks survive duplicated module copies.
 */
const marker = Symbol.for('dossier.error');

export type ErrorCode =
  | 'bad-input'
  | 'unsupported-format'
  | 'parse-failed'
  | 'empty-document'
  | 'encrypted-document'
  /** A file with nothing to index that is not a fault (an image without text, OCR turned off): reported as skipped with this reason. */
  | 'skipped'
  | 'embedder-mismatch'
  | 'not-found'
  | 'store-failed'
  /** The database server cannot be reached right now (down, restarting, connection lost): retry shortly (HTTP 503). */
  | 'store-unavailable'
  /** The file is a SQLite database that Dossier did not make. */
  | 'not-an-index'
  /** The index was made by an older Dossier and a read-only command cannot upgrade it. */
  | 'needs-migration'
  /** A write on a store opened for reading. */
  | 'read-only'
  | 'remote-failed'
  /** The model or embedder server could not be reached (connection refused, DNS). */
  | 'remote-unreachable'
  /** The server refused the credentials (401/403); not retried. */
  | 'remote-auth'
  | 'remote-timeout'
  | 'aborted'
  /** A web fetch refused: not http(s), or the host is (or resolves to) a private, loopback, link-local or metadata address. */
  | 'blocked-address'
  | 'config'
  /** HTTP: no valid API key, or a role that does not allow the write. */
  | 'unauthorized'
  | 'forbidden'
  | 'rate-limited'
  | 'too-large';

export class DossierError extends Error {
  readonly [marker] = true;
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DossierError';
    this.code = code;
  }

  static isInstance(value: unknown): value is DossierError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}

/** One line, no stack: what the CLI and ingest reports show a person. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 300) || 'unknown error';
}
