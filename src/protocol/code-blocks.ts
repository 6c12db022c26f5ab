/**
 * The one reading of code in passage and answer text, for every surface that shows it (the CLI and
 * the web page): chunk text holds code blocks as Markdown fences (```python … ```, laid out by the
 * chunker), and answers quote them or write `inline code`. Dependency-free and browser-safe.
 *
 * Fences follow CommonMark (three or more backticks or tildes open one, the same character at least
 * as many times closes it, an unclosed fence runs to the end of the text), with two allowances for
 * answers: a fence may be indented any amount (steps in a list), and a closing fence may be followed
 * by citation markers (the offline reader writes "``` [E1]"), which the block keeps as `citations`.
 */
import { parseCitationMarkers } from './citations.ts';

export type TextBlock =
  | { kind: 'prose'; text: string }
  | {
      kind: 'code';
      /** The code's lines joined by "\n", verbatim (less the fence's own indentation). */
      text: string;
      /** The fence's info word (`python`), when it has one. */
      language?: string;
      /** Citation markers written after the closing fence, as written ("[E1]"). */
      citations?: string;
    };

const OPENING_FENCE = /^([ \t]*)(`{3,}|~{3,})[ \t]*([^\n]*?)[ \t]*$/;

export interface OpeningFence {
  /** The fence as written ("```", "~~~~"): a closing fence is the same character, at least as many. */
  fence: string;
  /** The white space before it, which the block's lines lose too. */
  indent: string;
  language?: string;
}

/** `line` as a fence that opens a code block, or undefined. */
export function openingFence(line: string): OpeningFence | undefined {
  const match = OPENING_FENCE.exec(line.replace(/\r$/, ''));
  // A backtick fence's info string has no backtick (CommonMark): "```x``` y" is inline code.
  if (!match || (match[2][0] === '`' && match[3].includes('`'))) return undefined;
  const language = /^[\w+#.-]+/.exec(match[3])?.[0];
  return { fence: match[2], indent: match[1], ...(language ? { language } : {}) };
}

/** `line` as the fence that closes `opened`, with the citation markers after it if any; or undefined. */
export function closingFence(line: string, opened: OpeningFence): { citations?: string } | undefined {
  const match = /^[ \t]*(`{3,}|~{3,})(.*)$/.exec(line.replace(/\r$/, ''));
  if (!match || match[1][0] !== opened.fence[0] || match[1].length < opened.fence.length) return undefined;
  const rest = match[2].trim();
  if (!rest) return {};
  const markers = parseCitationMarkers(rest);
  const covered = markers.reduce((text, marker) => text.replace(marker.text, ''), rest);
  return markers.length && !covered.trim() ? { citations: rest } : undefined;
}

/** A line of a code block without its fence's indentation. */
export function codeLine(line: string, opened: OpeningFence): string {
  return line.startsWith(opened.indent) ? line.slice(opened.indent.length) : line.trimStart();
}

/** `text` as prose and fenced code blocks, in order; prose blocks keep their own line breaks. */
export function splitCodeBlocks(text: string): TextBlock[] {
  const blocks: TextBlock[] = [];
  let prose: string[] = [];
  const endProse = () => {
    const joined = prose.join('\n').replace(/^(?:[ \t]*\n)+|(?:\n[ \t]*)+$/g, '');
    if (joined.trim()) blocks.push({ kind: 'prose', text: joined });
    prose = [];
  };
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const opened = openingFence(lines[i]);
    if (!opened) {
      prose.push(lines[i]);
      continue;
    }
    endProse();
    const code: string[] = [];
    let citations: string | undefined;
    for (i++; i < lines.length; i++) {
      const closing = closingFence(lines[i], opened);
      if (closing) {
        citations = closing.citations;
        break;
      }
      code.push(codeLine(lines[i], opened));
    }
    const { language } = opened;
    blocks.push({ kind: 'code', text: code.join('\n'), ...(language ? { language } : {}), ...(citations ? { citations } : {}) });
  }
  endProse();
  return blocks;
}

export interface InlineSpan {
  /** A code span (`x`): its text without the backticks. */
  code: boolean;
  text: string;
}

/**
 * `text` as plain and `code` spans (CommonMark code spans: a run of n backticks closes at the next
 * run of exactly n; an unmatched run is plain text). A span's one space of padding each side goes,
 * so "`` `x` ``" holds "`x`".
 */
export function splitInlineCode(text: string): InlineSpan[] {
  const spans: InlineSpan[] = [];
  let plainFrom = 0;
  const runs = [...text.matchAll(/`+/g)];
  for (let r = 0; r < runs.length; r++) {
    const open = runs[r];
    const close = runs.findIndex((run, c) => c > r && run[0].length === open[0].length);
    if (close < 0) continue;
    const start = open.index!;
    if (start > plainFrom) spans.push({ code: false, text: text.slice(plainFrom, start) });
    let inner = text.slice(start + open[0].length, runs[close].index!).replace(/\n/g, ' ');
    if (inner.length > 2 && inner.startsWith(' ') && inner.endsWith(' ') && inner.trim()) inner = inner.slice(1, -1);
    spans.push({ code: true, text: inner });
    plainFrom = runs[close].index! + runs[close][0].length;
    r = close;
  }
  if (plainFrom < text.length) spans.push({ code: false, text: text.slice(plainFrom) });
  return spans;
}
