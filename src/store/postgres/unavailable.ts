import { DossierError, oneLine } from '../../errors/index.ts';

/**
 * PostgreSQL being down, restarting or unreachable is not a bad query: callers (the HTTP server) tell
 * it apart as `store-unavailable` (503, retry shortly) and the next query, on a fresh connection,
 * succeeds once the server is back. Shared by the store (pg-store.ts) and the server state.
 */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down), too_many_connections. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
/** node-postgres's own words for a connection that went away (no code attached). */
const DRIVER_MESSAGES =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable/i;

/** A short reason when `error` means PostgreSQL cannot be reached right now; undefined for any other error. */
export function unavailableReason(error: unknown): string | undefined {
  const err = error as { code?: unknown; message?: unknown; errors?: unknown[] } | undefined;
  if (!err || typeof err !== 'object') return undefined;
  const code = typeof err.code === 'string' ? err.code : '';
  if (NETWORK_CODES.has(code)) return code;
  // Class 08: connection exceptions (the server saw the connection fail).
  if (SERVER_CODES.has(code) || /^08/.test(code)) return `${code}: ${oneLine(error).slice(0, 120)}`;
  if (typeof err.message === 'string' && DRIVER_MESSAGES.test(err.message)) return oneLine(error).slice(0, 120);
  // Several addresses tried (localhost → ::1 and 127.0.0.1): an AggregateError of connection errors.
  if (Array.isArray(err.errors) && err.errors.length > 0) return unavailableReason(err.errors[0]);
  return undefined;
}

/** `error` as the one-line `store-unavailable` DossierError, or undefined when it is some other failure. */
export function unavailableError(error: unknown, host: string): DossierError | undefined {
  const reason = unavailableReason(error);
  if (reason === undefined) return undefined;
  // A refused or unresolvable address may also be a wrong URL rather than a restart: say so.
  const hint = NETWORK_CODES.has(reason) ? ' (is it running, and is --db / DOSSIER_DB right?)' : '';
  return new DossierError('store-unavailable', `PostgreSQL at ${host} is unavailable (${reason}); retry shortly${hint}`, { cause: error });
}
