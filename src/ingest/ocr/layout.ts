/**
 * From tesseract's page tree (blocks → paragraphs → lines) to the paragraphs a person reads: noise
 * lines dropped, words broken at a line-end hyphen joined again, lines kept as lines, and a short
 * paragraph set in much larger type marked as a heading. Pure functions, so they are tested without
 * running OCR.
 */

/** A line below this mean word confidence (0–100) is noise: figure fragments, speckles, ruling. */
export const MIN_LINE_CONFIDENCE = 30;
/** A word tesseract is this unsure of, inside a line worth keeping, is garble (overprinted text, a stamp). */
export const MIN_WORD_CONFIDENCE = 5;
/** A paragraph of at most two lines, each set this much taller than the page's body text, is a heading. */
export const HEADING_HEIGHT_RATIO = 1.4;
/** ... and twice as tall or more is a top-level heading. */
export const TITLE_HEIGHT_RATIO = 2;
const MAX_HEADING_CHARS = 80;

/** The parts of tesseract.js's `Page` output this module reads. */
export interface TesseractBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}
export interface TesseractLine {
  text: string;
  confidence: number;
  bbox: TesseractBox;
  rowAttributes?: { rowHeight: number };
  words?: { text: string; confidence: number }[];
}
export interface TesseractParagraph {
  lines: TesseractLine[];
}
export interface TesseractBlock {
  blocktype?: string | number;
  paragraphs: TesseractParagraph[];
}

export interface OcrParagraph {
  /** The paragraph's lines, in reading order, noise removed. */
  lines: string[];
  /** Mean confidence of the kept lines (0–100). */
  confidence: number;
  /** 1 or 2 when the paragraph looks like a heading (set in larger type), absent otherwise. */
  heading?: 1 | 2;
}

/** Tesseract's PolyBlockType for vertical text (a rotated margin note such as an arXiv stamp). */
const VERTICAL_TEXT = '7';

/** The line without its garbled words (all of it when tesseract gave no words). */
function lineText(line: TesseractLine): string {
  if (!line.words?.length) return line.text.trim();
  return line.words
    .filter((word) => word.confidence >= MIN_WORD_CONFIDENCE)
    .map((word) => word.text.trim())
    .filter(Boolean)
    .join(' ');
}

function isNoise(line: TesseractLine): boolean {
  const text = lineText(line);
  return !text || line.confidence < MIN_LINE_CONFIDENCE || !/[\p{L}\p{N}]/u.test(text);
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Joins "ap-" + "plications" into "applications" when a lower-case word was broken at the line end. */
export function joinHyphenated(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of lines) {
    const line = raw.replace(/\s+/g, ' ').trim();
    const previous = out.at(-1);
    if (previous !== undefined && /\p{Ll}-$/u.test(previous) && /^\p{Ll}/u.test(line)) {
      const [first, ...rest] = line.split(' ');
      out[out.length - 1] = previous.slice(0, -1) + first;
      if (rest.length) out.push(rest.join(' '));
    } else out.push(line);
  }
  return out;
}

export function paragraphsOf(blocks: readonly TesseractBlock[] | null | undefined): OcrParagraph[] {
  if (!blocks) return [];
  const kept: { lines: TesseractLine[]; vertical: boolean }[] = [];
  for (const block of blocks) {
    const vertical = String(block.blocktype) === VERTICAL_TEXT;
    for (const paragraph of block.paragraphs ?? []) {
      const lines = (paragraph.lines ?? []).filter((line) => !isNoise(line));
      if (lines.length) kept.push({ lines, vertical });
    }
  }
  // Type size two ways: the line's box (inflated by stray marks beside it) and tesseract's row
  // height (ascender to descender); a heading must be larger than the body text by both.
  const boxHeight = (line: TesseractLine) => line.bbox.y1 - line.bbox.y0;
  const rowHeight = (line: TesseractLine) => line.rowAttributes?.rowHeight ?? boxHeight(line);
  const horizontal = kept.filter((p) => !p.vertical).flatMap((p) => p.lines);
  const bodyBox = median(horizontal.map(boxHeight));
  const bodyRow = median(horizontal.map(rowHeight));
  return kept.map(({ lines, vertical }): OcrParagraph => {
    const text = joinHyphenated(lines.map(lineText));
    const confidence = Math.round(lines.reduce((sum, line) => sum + line.confidence, 0) / lines.length);
    const paragraph: OcrParagraph = { lines: text, confidence };
    const size = Math.min(...lines.map((line) => Math.min(boxHeight(line) / (bodyBox || 1), rowHeight(line) / (bodyRow || 1))));
    if (
      !vertical &&
      bodyBox > 0 &&
      bodyRow > 0 &&
      lines.length <= 2 &&
      text.join(' ').length <= MAX_HEADING_CHARS &&
      size >= HEADING_HEIGHT_RATIO
    ) {
      paragraph.heading = size >= TITLE_HEIGHT_RATIO ? 1 : 2;
    }
    return paragraph;
  });
}
