/** Locates the shared sample corpus (../shared/data/docs-mixed beside the repo) for tests. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const DOCS_MIXED = join(repoRoot, '..', 'shared', 'data', 'docs-mixed');
export const hasDocsMixed = existsSync(DOCS_MIXED);
export const SKIP_REASON = `sample corpus not found at ${DOCS_MIXED}`;

/** Bytes of a file under docs-mixed, or undefined when the corpus is absent. */
export function docsMixedFile(relative: string): { path: string; bytes: Uint8Array } | undefined {
  const path = join(DOCS_MIXED, relative);
  if (!existsSync(path)) return undefined;
  return { path, bytes: readFileSync(path) };
}
