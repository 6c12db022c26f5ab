// The page's one client of the API: every request carries this tab's API key when one is set,
// and a 401 anywhere brings up the key form (only servers run with --auth keys ask for one).
import { createClient, DossierClientError } from '../client/index.ts';
import { byId, showStatus } from './dom.ts';

const KEY_STORAGE = 'dossier.apiKey';

export const storedKey = () => sessionStorage.getItem(KEY_STORAGE);
export const rememberKey = (key: string) => sessionStorage.setItem(KEY_STORAGE, key);
export const forgetKey = () => sessionStorage.removeItem(KEY_STORAGE);

/** Shows the key form; the server's reason only when a key was tried (a first visit needs none). */
export function askForKey(message: string): void {
  byId('key-form-section').hidden = false;
  byId('key-error').textContent = storedKey() ? message : '';
  byId('key-status').hidden = true;
  byId('api-key').focus();
}

async function reasonOf(response: Response): Promise<string> {
  try {
    const body = (await response.clone().json()) as { error?: { message?: string } };
    if (body.error?.message) return body.error.message;
  } catch {
    // Not JSON (a proxy's page): the status line says enough.
  }
  return `${response.status} ${response.statusText}`;
}

async function fetchWithKey(input: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const key = storedKey();
  if (key) headers.set('authorization', `Bearer ${key}`);
  const response = await fetch(input, { ...init, headers });
  if (response.status === 401) askForKey(await reasonOf(response));
  return response;
}

export const api = createClient({ baseUrl: location.origin, fetch: fetchWithKey });

export const isUnauthorized = (error: unknown) => DossierClientError.isInstance(error) && error.status === 401;

/** Shows what went wrong in the status line; an abort is no error, and a 401 has the key form. */
export function reportError(error: unknown): void {
  if ((error as Error | undefined)?.name === 'AbortError') return;
  if (isUnauthorized(error)) return;
  showStatus(error instanceof Error ? error.message : String(error), 'error');
}
