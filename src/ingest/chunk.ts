import type { ChunkFields } from '../store/types.ts';
import { countTokens } from '../text/tokenize.ts';
import type { Block } from './types.ts';

/**
 * Structure-aware chunking. Blocks are laid out into one document text (paragraphs separated by a
 * blank line); a chunk never crosses a heading, prefers whole paragraphs, falls back to sentences
 * and then to word windows for oversized pieces, and overlaps its neighbour by up to `overlapTokens`
 * of whole sentences. A chunk's text is exactly `documentText.slice(charStart, charEnd)`, so a
 * citation can point at the place it came from.
 *
 * A code block is laid out as a Markdown fence (```lang … ```), so every reader of chunk text (the
 * offline reader, evidence cuts, the CLI, the web page) sees code as code. Code is cut only between
 * lines: a block too big for a chunk is laid out as several fences, one per piece. The paragraph
 * just before a code block (the sentence that introduces it, "Install it with:") goes into the
 * code's chunk whenever the two fit together.
 */
export interface ChunkOptions {
  maxTokens?: number;
  overlapTokens?: number;
}

export type Chunk = ChunkFields;

export interface ChunkedDocument {
  text: string;
  chunks: Chunk[];
}

interface Unit {
  start: number;
  end: number;
  tokens: number;
  page?: number;
  section: number;
  /** First unit of a paragraph: packing prefers to break before these. */
  paragraphStart: boolean;
  /** A fenced piece of a code block; `codeStart` for its first (or only) piece. */
  code?: boolean;
  codeStart?: boolean;
}

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

export function chunkBlocks(blocks: Block[], options: ChunkOptions = {}): ChunkedDocument {
  const maxTokens = Math.max(16, options.maxTokens ?? 512); // 512 beat 256, 384 and 768 on SciFact train
  const overlapTokens = Math.min(Math.max(0, options.overlapTokens ?? 64), Math.floor(maxTokens / 2));
  const parts: string[] = [];
  let length = 0;
  const units: Unit[] = [];
  const headingPaths: string[][] = [];
  const headingStack: { level: number; text: string }[] = [];
  let section = -1;
  const newSection = () => {
    section++;
    headingPaths.push(headingStack.map((heading) => heading.text));
  };
  newSection();

  const append = (text: string): number => {
    if (parts.length > 0) {
      parts.push('\n\n');
      length += 2;
    }
    const start = length;
    parts.push(text);
    length += text.length;
    return start;
  };

  for (const block of blocks) {
    if (block.type === 'code') {
      codePieces(block.text, block.language, maxTokens).forEach((piece, n) => {
        const start = append(piece.text);
        units.push({
          start,
          end: start + piece.text.length,
          tokens: piece.tokens,
          page: block.page,
          section,
          paragraphStart: true,
          code: true,
          codeStart: n === 0,
        });
      });
      continue;
    }
    const text = block.text.replace(/\r\n?/g, '\n').trim();
    if (!text) continue;
    if (block.type === 'heading') {
      while (headingStack.length && headingStack[headingStack.length - 1].level >= block.level) headingStack.pop();
      headingStack.push({ level: block.level, text: text.replace(/\s+/g, ' ') });
      append(text);
      newSection();
      continue;
    }
    const start = append(text);
    const tokens = countTokens(text);
    if (tokens <= maxTokens) {
      units.push({ start, end: start + text.length, tokens, page: block.page, section, paragraphStart: true });
    } else {
      splitLong(text, start, maxTokens).forEach((piece, i) => units.push({ ...piece, page: block.page, section, paragraphStart: i === 0 }));
    }
  }

  const documentText = parts.join('');
  const chunks: Chunk[] = [];
  let i = 0;
  while (i < units.length) {
    let j = i;
    let tokens = units[i].tokens;
    while (j + 1 < units.length && units[j + 1].section === units[i].section && tokens + units[j + 1].tokens <= maxTokens) {
      j++;
      tokens += units[j].tokens;
    }
    // The paragraph that introduces a code block waits for the next chunk when it fits there with the code.
    const introHeld = j > i && introFits(units, j, maxTokens);
    if (introHeld) tokens -= units[j--].tokens;
    const first = units[i];
    const last = units[j];
    const pages = units
      .slice(i, j + 1)
      .map((unit) => unit.page)
      .filter((page): page is number => page !== undefined);
    const chunk: Chunk = {
      ordinal: chunks.length,
      text: documentText.slice(first.start, last.end),
      tokenCount: tokens,
      headingPath: headingPaths[first.section],
      charStart: first.start,
      charEnd: last.end,
    };
    if (pages.length) {
      chunk.page = Math.min(...pages);
      const pageEnd = Math.max(...pages);
      if (pageEnd !== chunk.page) chunk.pageEnd = pageEnd;
    }
    chunks.push(chunk);
    if (j + 1 >= units.length) break;
    // Next chunk starts with trailing sentences of this one (same section only) up to the overlap budget.
    let next = j + 1;
    if (!introHeld && units[next].section === first.section && overlapTokens > 0) {
      let overlap = 0;
      let k = j;
      while (k > i && !units[k].paragraphStart && overlap + units[k].tokens <= overlapTokens) {
        overlap += units[k].tokens;
        k--;
      }
      if (k < j) next = k + 1;
    }
    i = next;
  }
  return { text: documentText, chunks };
}

/** Unit `at` is prose right before the start of a code block in its section, and the two fit in one chunk. */
function introFits(units: Unit[], at: number, maxTokens: number): boolean {
  const intro = units[at];
  const code = units[at + 1];
  return !intro.code && code?.codeStart === true && code.section === intro.section && intro.tokens + code.tokens <= maxTokens;
}

/** A fence that no line of the code can close: longer than any backtick run that opens one of its lines. */
function fenceFor(code: string): string {
  let longest = 0;
  for (const match of code.matchAll(/^[ \t]*(`{3,})/gm)) longest = Math.max(longest, match[1].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/**
 * A code block as fenced pieces of at most `maxTokens` tokens each, cut only between lines (a single
 * line longer than a chunk is the one thing cut inside, at whitespace). Leading blank lines and
 * trailing whitespace go; indentation stays.
 */
export function codePieces(source: string, language: string | undefined, maxTokens: number): { text: string; tokens: number }[] {
  const code = source
    .replace(/\r\n?/g, '\n')
    .replace(/^(?:[ \t]*\n)+/, '')
    .trimEnd();
  if (!code.trim()) return [];
  const fence = fenceFor(code);
  const open = `${fence}${language ?? ''}`;
  const overhead = countTokens(open) + countTokens(fence);
  const fenced = (lines: string[], tokens: number) => ({ text: `${open}\n${lines.join('\n')}\n${fence}`, tokens: tokens + overhead });
  const budget = Math.max(1, maxTokens - overhead);
  const pieces: { text: string; tokens: number }[] = [];
  let lines: string[] = [];
  let tokens = 0;
  const flush = () => {
    // Blank lines at a cut belong to neither piece.
    while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
    if (lines.some((line) => line.trim())) pieces.push(fenced(lines, tokens));
    lines = [];
    tokens = 0;
  };
  for (const line of code.split('\n')) {
    const lineTokens = countTokens(line);
    if (lineTokens > budget) {
      flush();
      for (const part of splitLong(line, 0, budget)) pieces.push(fenced([line.slice(part.start, part.end)], part.tokens));
      continue;
    }
    if (tokens + lineTokens > budget) flush();
    if (!lines.length && !line.trim()) continue;
    lines.push(line);
    tokens += lineTokens;
  }
  flush();
  return pieces;
}

/** Sentence pieces of an oversized paragraph; sentences still too long become word windows. */
function splitLong(text: string, offset: number, maxTokens: number): { start: number; end: number; tokens: number }[] {
  const pieces: { start: number; end: number; tokens: number }[] = [];
  for (const segment of segmenter.segment(text)) {
    const sentence = segment.segment.trimEnd();
    if (!sentence.trim()) continue;
    const lead = sentence.length - sentence.trimStart().length;
    const start = segment.index + lead;
    const body = sentence.trimStart();
    const tokens = countTokens(body);
    if (tokens <= maxTokens) {
      pieces.push({ start: offset + start, end: offset + start + body.length, tokens });
      continue;
    }
    // Word windows: cut at whitespace so every piece stays a real slice of the text.
    const words = [...body.matchAll(/\S+/g)];
    let from = 0;
    while (from < words.length) {
      let to = from;
      let count = 0;
      while (to < words.length) {
        const wordTokens = countTokens(words[to][0]);
        if (count + wordTokens > maxTokens && to > from) break;
        count += wordTokens;
        to++;
      }
      const pieceStart = words[from].index;
      const pieceEnd = words[to - 1].index + words[to - 1][0].length;
      pieces.push({ start: offset + start + pieceStart, end: offset + start + pieceEnd, tokens: count });
      from = to;
    }
  }
  return pieces;
}
