/** Locates the sample corpus (`docs-mixed/` of the data folder, DOSSIER_DATA_DIR) for tests. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFromEnv } from '../../config/index.ts';

export const DOCS_MIXED = join(configFromEnv().dataDir, 'docs-mixed');
export const hasDocsMixed = existsSync(DOCS_MIXED);
export const SKIP_REASON = `sample corpus not found at ${DOCS_MIXED}`;

/** Bytes of a file under docs-mixed, or undefined when the corpus is absent. */
export function docsMixedFile(relative: string): { path: string; bytes: Uint8Array } | undefined {
  const path = join(DOCS_MIXED, relative);
  if (!existsSync(path)) return undefined;
  return { path, bytes: readFileSync(path) };
}
