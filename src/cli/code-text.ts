// Code shown as code in the terminal: a fenced block of an answer or a passage becomes an indented
// block (four spaces), its lines verbatim and coloured only when colour is on; the fence lines go.
// Fences are read by the one grammar of protocol/code-blocks.ts.
import { closingFence, codeLine, openingFence, splitCodeBlocks, type OpeningFence } from '../protocol/code-blocks.ts';
import type { Colors } from './io.ts';

const CODE_INDENT = '    ';

/**
 * Formats text as it streams in (the answer's text deltas): prose passes through as it comes, and
 * only the start of a line that may be a fence is held until the line shows what it is.
 */
export class CodeBlockFormatter {
  private opened: OpeningFence | undefined;
  /** The start of the current line, held while it may still be a fence. */
  private held = '';
  /** The current line is known not to be a fence and is passed through as it comes. */
  private midLine = false;
  private wroteAny = false;
  private lastLineBlank = true;
  /** A code block just ended: the next prose line gets a blank line before it. */
  private blankBeforeProse = false;

  constructor(private readonly colors: Colors) {}

  push(delta: string): string {
    let out = '';
    for (const piece of delta.split(/(?<=\n)/)) {
      const shown = this.piece(piece);
      if (shown) this.wroteAny = true;
      out += shown;
    }
    return out;
  }

  /** The rest of the last line (call once, when the text is complete). */
  end(): string {
    if (this.midLine || !this.held) return '';
    const out = this.line(this.held, false);
    this.held = '';
    return out;
  }

  private piece(piece: string): string {
    const complete = piece.endsWith('\n');
    const text = complete ? piece.slice(0, -1) : piece;
    if (this.midLine) {
      if (complete) this.midLine = false;
      return this.codeText(text) + (complete ? '\n' : '');
    }
    this.held += text;
    if (complete) {
      const line = this.held;
      this.held = '';
      return this.line(line, true);
    }
    if (this.mayBeFence(this.held)) return '';
    const start = this.held;
    this.held = '';
    this.midLine = true;
    return this.lineStart(start);
  }

  /** Whether a line that starts `start` can still turn out to be a fence line. */
  private mayBeFence(start: string): boolean {
    const rest = start.trimStart();
    if (!rest) return true;
    if (rest[0] !== '`' && rest[0] !== '~') return false;
    const run = /^(`+|~+)/.exec(rest)![0];
    return run.length >= 3 || run.length === rest.length;
  }

  /** A whole line (with its newline when `newline`). */
  private line(line: string, newline: boolean): string {
    const end = newline ? '\n' : '';
    if (this.opened) {
      const closing = closingFence(line, this.opened);
      if (closing) {
        this.opened = undefined;
        this.blankBeforeProse = true;
        // The answer's citations of the block stay, on their own line after it.
        return closing.citations ? `${closing.citations}${end}` : '';
      }
      return line.trim() ? this.lineStart(line) + end : end;
    }
    const opened = openingFence(line);
    if (opened) {
      this.opened = opened;
      this.blankBeforeProse = false;
      return this.wroteAny && !this.lastLineBlank ? '\n' : '';
    }
    if (!line.trim()) {
      this.blankBeforeProse = false;
      this.lastLineBlank = true;
      return end;
    }
    return this.lineStart(line) + end;
  }

  /** The start of a line that is not a fence line. */
  private lineStart(text: string): string {
    if (this.opened) return CODE_INDENT + this.codeText(codeLine(text, this.opened));
    this.lastLineBlank = false;
    const blank = this.blankBeforeProse ? '\n' : '';
    this.blankBeforeProse = false;
    return blank + text;
  }

  private codeText(text: string): string {
    return this.opened && text ? this.colors.cyan(text) : text;
  }
}

/** A whole text (an answer printed at once) formatted as the stream would be. */
export function formatCodeBlocks(text: string, colors: Colors): string {
  const formatter = new CodeBlockFormatter(colors);
  return formatter.push(text) + formatter.end();
}

/**
 * A passage's preview lines (search hits): prose with its white space collapsed, up to `proseChars`
 * characters in all, and code blocks indented, up to `codeLines` whole lines in all; "…" where
 * something was left out.
 */
export function passagePreview(text: string, colors: Colors, limits = { proseChars: 240, codeLines: 8 }): string[] {
  const lines: string[] = [];
  let proseLeft = limits.proseChars;
  let codeLeft = limits.codeLines;
  let omitted = false;
  for (const block of splitCodeBlocks(text)) {
    if (block.kind === 'prose') {
      const flat = block.text.replace(/\s+/g, ' ').trim();
      if (proseLeft <= 0) omitted = true;
      else if (flat.length > proseLeft) {
        lines.push(`${flat.slice(0, proseLeft)}…`);
        proseLeft = 0;
      } else {
        lines.push(flat);
        proseLeft -= flat.length;
      }
      continue;
    }
    const code = block.text.split('\n');
    if (codeLeft <= 0) {
      omitted = true;
      continue;
    }
    for (const line of code.slice(0, codeLeft)) lines.push(line.trim() ? CODE_INDENT + colors.cyan(line) : '');
    if (code.length > codeLeft) lines.push(`${CODE_INDENT}…`);
    codeLeft -= Math.min(code.length, codeLeft);
  }
  if (omitted && !lines.at(-1)?.endsWith('…')) lines.push('…');
  return lines;
}
