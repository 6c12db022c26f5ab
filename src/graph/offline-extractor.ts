import { entitiesIn } from '../offline-model/index.ts';
import type { EntityType, ExtractedEntity, ExtractedRelationship, GraphChunk, GraphExtraction, GraphExtractor, Mention } from './types.ts';

/**
 * The offline extractor: entities are what a document's structure and typography mark as names
 * (its title and headings, capitalised and quoted names, code identifiers, command-line options,
 * environment variables), typed by how they are written; relationships are the names that share a
 * sentence or a code line (weighted co-occurrence), the words that join two of them when those are
 * few ("founded", "is part of"), and aliases ("also known as", an acronym in parentheses).
 */
export function createOfflineGraphExtractor(): GraphExtractor {
  return {
    id: 'offline-1',
    async extract(chunks) {
      const entities = new Map<string, ExtractedEntity>();
      const relationships = new Map<string, ExtractedRelationship>();
      const addEntity = (name: string, type: EntityType, mention: Mention) => {
        const known = entities.get(name);
        if (known) known.mentions.push(mention);
        else entities.set(name, { name, type, mentions: [mention] });
      };
      const relate = (source: string, target: string, predicate: string, weight: number, mention: Mention) => {
        const key = `${source}\u0000${target}\u0000${predicate}`;
        const known = relationships.get(key);
        if (known) {
          known.weight += weight;
          known.mentions.push(mention);
        } else relationships.set(key, { source, target, predicate, weight, mentions: [mention] });
      };
      for (const chunk of chunks) {
        if (chunk.title.trim())
          addEntity(chunk.title.trim(), 'title', { chunkId: chunk.id, field: 'title', start: 0, end: chunk.title.length });
        chunk.headingPath.forEach((heading, index) => {
          const name = heading.trim();
          if (!name || name === chunk.title.trim()) return;
          addEntity(name, headingType(name), { chunkId: chunk.id, field: 'heading', heading: index, start: 0, end: heading.length });
        });
        for (const segment of segmentsOf(chunk.text)) {
          const found = segment.code ? codeNames(segment) : proseNames(segment);
          const distinct: Found[] = [];
          for (const name of found) {
            addEntity(name.name, name.type, { chunkId: chunk.id, field: 'text', start: name.start, end: name.end });
            if (!distinct.some((d) => d.name === name.name)) distinct.push(name);
          }
          const span = (a: Found, b: Found): Mention => ({
            chunkId: chunk.id,
            field: 'text',
            start: Math.min(a.start, b.start),
            end: Math.max(a.end, b.end),
          });
          // Co-occurrence weighs less the more names share the segment; a long list says little of any pair.
          const pairs = distinct.slice(0, MAX_NAMES_PAIRED);
          for (let i = 0; i < pairs.length; i++)
            for (let j = i + 1; j < pairs.length; j++)
              relate(pairs[i].name, pairs[j].name, 'co-occurs', 1 / (pairs.length - 1), span(pairs[i], pairs[j]));
          if (segment.code) continue;
          const ordered = [...found].sort((a, b) => a.start - b.start);
          for (let i = 0; i + 1 < ordered.length; i++) {
            const [a, b] = [ordered[i], ordered[i + 1]];
            if (a.name === b.name || b.start < a.end) continue;
            const between = chunk.text.slice(a.end, b.start);
            const after = chunk.text.slice(b.end, b.end + 1);
            if (ALIAS_WORDS.test(between) || (/^\s*\($/.test(between) && after === ')' && isAcronymOf(b.name, a.name)))
              relate(a.name, b.name, 'alias', 1, span(a, b));
            else {
              const predicate = joiningWords(between);
              if (predicate) relate(a.name, b.name, predicate, 1, span(a, b));
            }
          }
        }
      }
      return { entities: [...entities.values()], relationships: [...relationships.values()], failures: [] } satisfies GraphExtraction;
    },
  };
}

/** Names paired for co-occurrence in one segment at most (the first ones). */
const MAX_NAMES_PAIRED = 12;
const ALIAS_WORDS = /^\s*,?\s*\(?\s*(?:also known as|also called|a\.k\.a\.|aka|formerly|short for)\s+$/i;
/** Words that say nothing of how two names relate. */
const EMPTY_WORDS = new Set(
  'a an the and or of in on at to for with by from as is are was were be been its their his her this that these those it'.split(' '),
);

/**
 * The words between two names when they read as a relation: one to five lower-case words with at
 * least one that says something ("founded", "is part of"), nothing else.
 */
function joiningWords(between: string): string | undefined {
  const text = between.trim();
  if (!/^[a-z][a-z' -]*$/.test(text)) return undefined;
  const words = text.split(/\s+/);
  if (words.length > 5 || words.every((word) => EMPTY_WORDS.has(word))) return undefined;
  return words.join(' ');
}

/** "NBA" of "National Basketball Association": the initials of its capitalised words. */
export function isAcronymOf(short: string, long: string): boolean {
  if (!/^[A-Z][A-Z0-9&]{1,7}$/.test(short)) return false;
  const letters = initialsOf(long);
  return letters.length >= 2 && letters === short.replace(/&/g, '');
}

/** The initials of a name's capitalised words ("North Atlantic Treaty Organization" → "NATO"). */
export function initialsOf(name: string): string {
  return name
    .split(/[\s-]+/)
    .filter((word) => /^\p{Lu}/u.test(word))
    .map((word) => word[0])
    .join('');
}

interface Segment {
  /** Offset of `text` in the chunk's text. */
  start: number;
  text: string;
  code: boolean;
}

interface Found {
  name: string;
  type: EntityType;
  /** Offsets in the chunk's text. */
  start: number;
  end: number;
}

/**
 * A chunk's text as sentences of prose and lines of code (inside Markdown fences), each with its
 * offset, so every name found keeps its span.
 */
export function segmentsOf(text: string): Segment[] {
  const segments: Segment[] = [];
  let inFence = false;
  let paragraph: { start: number; text: string } | undefined;
  const flush = () => {
    if (!paragraph) return;
    const { start, text: prose } = paragraph;
    let from = 0;
    for (const end of prose.matchAll(/[.!?](?=\s+["“'(`[]?[\p{Lu}\d])|\n\s*\n/gu)) {
      const stop = end.index + end[0].length;
      segments.push({ start: start + from, text: prose.slice(from, stop), code: false });
      from = stop;
    }
    if (from < prose.length) segments.push({ start: start + from, text: prose.slice(from), code: false });
    paragraph = undefined;
  };
  let offset = 0;
  for (const line of text.split('\n')) {
    const fence = /^\s*(?:```|~~~)/.test(line);
    if (fence) {
      flush();
      inFence = !inFence;
    } else if (inFence) {
      if (line.trim()) segments.push({ start: offset, text: line, code: true });
    } else if (!line.trim()) flush();
    else if (paragraph) paragraph.text = text.slice(paragraph.start, offset + line.length);
    else paragraph = { start: offset, text: line };
    offset += line.length + 1;
  }
  flush();
  return segments.filter((segment) => segment.text.trim());
}

const OPTION = /^--?[a-z][\w-]*(?:=\S+)?$/;
const VARIABLE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\))?$/;

/** A heading that is itself an option, a variable or an identifier is typed as one ("#### --preview"). */
function headingType(heading: string): EntityType {
  const bare = heading.replace(/^`|`$/g, '');
  if (OPTION.test(bare)) return 'option';
  if (VARIABLE.test(bare)) return 'variable';
  if (/`/.test(heading) || (IDENTIFIER.test(bare) && /[a-z][A-Z]|[._]|\(\)$/.test(bare))) return 'code';
  return 'heading';
}

function codeType(token: string): EntityType {
  if (OPTION.test(token)) return 'option';
  if (VARIABLE.test(token)) return 'variable';
  return 'code';
}

/** Names in a sentence: inline code, options and variables as written, then capitalised and quoted names. */
function proseNames(segment: Segment): Found[] {
  const found: Found[] = [];
  const taken: Array<[number, number]> = [];
  const free = (start: number, end: number) => taken.every(([s, e]) => end <= s || start >= e);
  const add = (name: string, type: EntityType, start: number) => {
    const end = start + name.length;
    if (name.length < 2 || !free(start, end)) return;
    taken.push([start, end]);
    found.push({ name, type, start: segment.start + start, end: segment.start + end });
  };
  for (const match of segment.text.matchAll(/`([^`\n]+)`/g)) {
    const token = match[1].trim().replace(/\(\)$/, '');
    if (OPTION.test(token) || VARIABLE.test(token) || IDENTIFIER.test(token)) add(token, codeType(token), match.index + 1);
    taken.push([match.index, match.index + match[0].length]);
  }
  for (const match of segment.text.matchAll(/(?<![\w-])--[a-z][\w-]+/g)) add(match[0], 'option', match.index);
  for (const match of segment.text.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)) add(match[0], 'variable', match.index);
  let cursor = 0;
  for (const name of entitiesIn(segment.text.replace(/`[^`\n]*`/g, (code) => ' '.repeat(code.length)))) {
    const at = segment.text.indexOf(name, cursor);
    const start = at >= 0 ? at : segment.text.indexOf(name);
    if (start < 0) continue;
    add(name, 'name', start);
    if (at >= 0) cursor = at + name.length;
  }
  return found.sort((a, b) => a.start - b.start);
}

/** Names a code line declares or uses: classes and functions defined, modules imported, classes called, options. */
function codeNames(segment: Segment): Found[] {
  const found: Found[] = [];
  const add = (name: string, at: number) => {
    if (name.length < 2 || found.some((f) => f.name === name)) return;
    found.push({ name, type: codeType(name), start: segment.start + at, end: segment.start + at + name.length });
  };
  const line = segment.text;
  for (const match of line.matchAll(/\b(?:class|def|function|interface|type|struct|enum)\s+([A-Za-z_$][\w$]*)/g))
    add(match[1], match.index + match[0].length - match[1].length);
  for (const match of line.matchAll(/\b(?:import|from)\s+([A-Za-z_][\w.]*)/g))
    add(match[1], match.index + match[0].length - match[1].length);
  for (const match of line.matchAll(/\bimport\s+([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)/g)) {
    let at = match.index + match[0].length - match[1].length;
    for (const name of match[1].split(',')) {
      const trimmed = name.trim();
      add(trimmed, at + name.indexOf(trimmed));
      at += name.length + 1;
    }
  }
  for (const match of line.matchAll(/\b([A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*)\s*\(/g)) add(match[1], match.index);
  for (const match of line.matchAll(/(?<![\w-])--[a-z][\w-]+/g)) add(match[0], match.index);
  return found.sort((a, b) => a.start - b.start);
}
