import { initialsOf, isAcronymOf } from './offline-extractor.ts';
import type { EntityType, ExtractedEntity, ExtractedRelationship, Mention } from './types.ts';

/** An entity after its name variants are merged. */
export interface ResolvedEntity {
  /** The merged name's key (`entityKey` of its canonical name): what a question's name is matched by. */
  key: string;
  /** The variant mentioned most (the longest of a tie). */
  name: string;
  type: EntityType;
  /** Every name it was found as, the canonical one first. */
  variants: string[];
  mentions: Mention[];
  /** The fullest of its variants' descriptions, when an extractor gave any. */
  description?: string;
}

export interface ResolvedRelationship {
  /** Keys of resolved entities. */
  source: string;
  target: string;
  predicate: string;
  weight: number;
  mentions: Mention[];
}

export interface ResolvedGraph {
  entities: ResolvedEntity[];
  relationships: ResolvedRelationship[];
}

/**
 * The key two spellings of one name share: case, accents, punctuation and a leading "the" do not
 * count, nor a disambiguation in parentheses ("Winner (band)" is "winner"), nor the call
 * parentheses of an identifier. An option keeps its dashes.
 */
export function entityKey(name: string): string {
  const bare = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/\(\)$/, '')
    .replace(/\s+\([^)]*\)$/, '')
    .trim();
  const dashes = /^--?/.exec(bare)?.[0] ?? '';
  return (
    dashes +
    bare
      .slice(dashes.length)
      .toLowerCase()
      .replace(/^the\s+/, '')
      .replace(/['’]s$/, '')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
  );
}

/** Which type a merged entity takes: what structure says of it first, then what most of its mentions say. */
const TYPE_ORDER: EntityType[] = ['title', 'option', 'variable', 'code', 'heading', 'name'];

/**
 * Merges name variants: the same key, an acronym and the one name whose initials it is, and the
 * pairs the text says are one ("also known as", an acronym in parentheses, `alias` relationships).
 * Relationships are re-pointed at the merged entities and summed; a relationship of an entity with
 * itself (two variants of one name) is dropped.
 */
export function resolveEntities(entities: readonly ExtractedEntity[], relationships: readonly ExtractedRelationship[]): ResolvedGraph {
  const keys = [...new Set(entities.map((entity) => entityKey(entity.name)).filter(Boolean))];
  const parent = new Map(keys.map((key) => [key, key]));
  const find = (key: string): string => {
    let root = key;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(key, root);
    return root;
  };
  const union = (a: string, b: string) => {
    const [ra, rb] = [find(a), find(b)];
    if (ra !== rb) parent.set(rb, ra);
  };
  for (const relationship of relationships) {
    if (relationship.predicate !== 'alias') continue;
    const [a, b] = [entityKey(relationship.source), entityKey(relationship.target)];
    if (parent.has(a) && parent.has(b)) union(a, b);
  }
  // An acronym found alone merges with the one longer name whose initials it is (two such names: neither).
  const names = [...new Set(entities.map((entity) => entity.name))];
  // Names by their initials, so each acronym meets only the names it could stand for.
  const byInitials = new Map<string, string[]>();
  for (const name of names) {
    const letters = initialsOf(name);
    if (letters.length >= 2 && letters.length <= 8) byInitials.set(letters, [...(byInitials.get(letters) ?? []), name]);
  }
  for (const short of names.filter((name) => /^[A-Z][A-Z0-9&]{1,7}$/.test(name))) {
    const candidates = byInitials.get(short.replace(/&/g, '')) ?? [];
    const longs = [...new Set(candidates.filter((long) => long !== short && isAcronymOf(short, long)).map(entityKey))];
    if (longs.length === 1) union(longs[0], entityKey(short));
  }
  const groups = new Map<string, ExtractedEntity[]>();
  for (const entity of entities) {
    const key = entityKey(entity.name);
    if (!key) continue;
    const root = find(key);
    groups.set(root, [...(groups.get(root) ?? []), entity]);
  }
  const resolved: ResolvedEntity[] = [];
  const keyOfRoot = new Map<string, string>();
  for (const [root, members] of groups) {
    const counts = new Map<string, number>();
    for (const member of members) counts.set(member.name, (counts.get(member.name) ?? 0) + member.mentions.length);
    const variants = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length).map(([name]) => name);
    const types = members.map((member) => member.type);
    const type =
      TYPE_ORDER.find((candidate) => candidate !== 'name' && candidate !== 'heading' && types.includes(candidate)) ?? mostCommon(types);
    const key = entityKey(variants[0]);
    keyOfRoot.set(root, key);
    const description = members
      .map((member) => member.description ?? '')
      .sort((a, b) => b.length - a.length || (a < b ? -1 : a > b ? 1 : 0))[0];
    resolved.push({
      key,
      name: variants[0],
      type,
      variants,
      mentions: members.flatMap((member) => member.mentions),
      ...(description ? { description } : {}),
    });
  }
  const merged = new Map<string, ResolvedRelationship>();
  for (const relationship of relationships) {
    if (relationship.predicate === 'alias') continue;
    const [a, b] = [entityKey(relationship.source), entityKey(relationship.target)];
    if (!parent.has(a) || !parent.has(b)) continue;
    const [source, target] = [keyOfRoot.get(find(a))!, keyOfRoot.get(find(b))!];
    if (source === target) continue;
    const id = `${source}\u0000${target}\u0000${relationship.predicate}`;
    const known = merged.get(id);
    if (known) {
      known.weight += relationship.weight;
      known.mentions.push(...relationship.mentions);
    } else
      merged.set(id, {
        source,
        target,
        predicate: relationship.predicate,
        weight: relationship.weight,
        mentions: [...relationship.mentions],
      });
  }
  return { entities: resolved, relationships: [...merged.values()] };
}

function mostCommon<T>(values: readonly T[]): T {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
}
