import { extname } from 'node:path';
import { DossierError, oneLine } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { fileStem } from './util.ts';

/** Deeper structure is stringified whole: keeps recursion bounded on adversarial input. */
const MAX_DEPTH = 32;
/** Split one record's lines into several blocks past this size. */
const MAX_BLOCK_CHARS = 2000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function scalar(value: unknown): string {
  if (typeof value === 'string') return value.replace(/\s+/g, ' ').trim();
  return String(value);
}

/** "address.city: Paris", "tags: a, b" — readable lines that keep the path to each value. */
export function flattenJson(value: unknown, path = '', lines: string[] = [], depth = 0): string[] {
  const label = (text: string) => (path ? `${path}: ${text}` : text);
  if (value === null || value === undefined) return lines;
  if (depth >= MAX_DEPTH) {
    lines.push(label(JSON.stringify(value)));
    return lines;
  }
  if (Array.isArray(value)) {
    if (value.every((item) => !isPlainObject(item) && !Array.isArray(item))) {
      const items = value.filter((item) => item !== null && item !== '').map(scalar);
      if (items.length > 0) lines.push(label(items.join(', ')));
      return lines;
    }
    value.forEach((item, i) => flattenJson(item, `${path}[${i}]`, lines, depth + 1));
    return lines;
  }
  if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) flattenJson(child, path ? `${path}.${key}` : key, lines, depth + 1);
    return lines;
  }
  const text = scalar(value);
  if (text !== '') lines.push(label(text));
  return lines;
}

function linesToBlocks(lines: string[], out: Block[]): void {
  let current: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length > MAX_BLOCK_CHARS && current.length > 0) {
      out.push({ type: 'text', text: current.join('\n') });
      current = [];
      size = 0;
    }
    current.push(line);
    size += line.length + 1;
  }
  if (current.length > 0) out.push({ type: 'text', text: current.join('\n') });
}

/** One block per record for arrays of objects; per top-level key otherwise. */
export function jsonToBlocks(value: unknown): Block[] {
  const blocks: Block[] = [];
  if (Array.isArray(value)) {
    for (const item of value) linesToBlocks(flattenJson(item), blocks);
  } else if (isPlainObject(value)) {
    // Scalar fields stay together; a list of records nested under a key becomes a block per record.
    let pending: string[] = [];
    for (const [key, child] of Object.entries(value)) {
      if (Array.isArray(child) && child.some(isPlainObject)) {
        linesToBlocks(pending, blocks);
        pending = [];
        child.forEach((item, i) => linesToBlocks(flattenJson(item, `${key}[${i}]`), blocks));
      } else {
        flattenJson(child, key, pending);
      }
    }
    linesToBlocks(pending, blocks);
  } else {
    linesToBlocks(flattenJson(value), blocks);
  }
  return blocks;
}

function titleOf(value: unknown): string | undefined {
  if (!isPlainObject(value)) return undefined;
  for (const key of ['title', 'name', 'headline', 'subject']) {
    const candidate = value[key];
    if (typeof candidate === 'string' && candidate.trim()) return candidate.trim().slice(0, 200);
  }
  return undefined;
}

export const jsonParser: Parser = {
  name: 'json',
  extensions: ['json', 'jsonl', 'ndjson', 'geojson'],
  mediaTypes: ['application/json', 'application/x-ndjson', 'application/jsonl', 'application/geo+json'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes);
    if (text.trim().length === 0) throw new DossierError('empty-document', 'empty JSON file');
    if (!looksLikeText(text)) throw new DossierError('parse-failed', 'binary data, not JSON');
    const ext = extname(path).slice(1).toLowerCase();
    let blocks: Block[];
    let value: unknown;
    let lineMode = ext === 'jsonl' || ext === 'ndjson';
    if (!lineMode) {
      try {
        value = JSON.parse(text);
      } catch (error) {
        // A .json file that is really JSON Lines is common enough to accept.
        const lines = text.split('\n').filter((line) => line.trim());
        if (lines.length > 1 && lines.every((line) => /^\s*[[{]/.test(line))) lineMode = true;
        else throw new DossierError('parse-failed', `malformed JSON: ${oneLine(error)}`, { cause: error });
      }
    }
    const metadata: Record<string, unknown> = {};
    if (lineMode) {
      blocks = [];
      let bad = 0;
      let records = 0;
      let firstError = '';
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        try {
          const record = JSON.parse(line);
          records++;
          value ??= record;
          linesToBlocks(flattenJson(record), blocks);
        } catch (error) {
          bad++;
          firstError ||= oneLine(error);
        }
      }
      if (records === 0) throw new DossierError('parse-failed', `malformed JSON Lines: ${firstError || 'no records'}`);
      metadata.records = records;
      if (bad > 0) metadata.invalidLines = bad;
    } else {
      blocks = jsonToBlocks(value);
      if (Array.isArray(value)) metadata.records = value.length;
    }
    if (blocks.length === 0) throw new DossierError('empty-document', 'no values in JSON');
    return {
      title: (lineMode ? undefined : titleOf(value)) ?? fileStem(path),
      mediaType: lineMode ? 'application/x-ndjson' : 'application/json',
      blocks,
      metadata,
    };
  },
};
