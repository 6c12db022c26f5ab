import { DossierError } from '../errors/index.ts';
import type { Scope } from './types.ts';

/**
 * A scope narrowed to the named collections (none named: the scope itself). A name outside it reads
 * exactly like an absent one ("not found"): whether it exists is not the caller's to learn. From
 * every collection (`*`) the names are taken as they are.
 */
export function narrowScope(scope: Scope, names: readonly string[] | undefined): Scope {
  const named = [...new Set((names ?? []).filter(Boolean))];
  if (named.length === 0) return scope;
  if (scope.collections === '*') return { collections: named };
  const allowed = scope.collections;
  const hidden = named.filter((name) => !allowed.includes(name));
  if (hidden.length) throw new DossierError('not-found', `no collection ${hidden.map((n) => `"${n}"`).join(', ')}`);
  return { collections: named };
}
