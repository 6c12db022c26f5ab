import { extname } from 'node:path';
import Papa from 'papaparse';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { fileStem } from './util.ts';

/** Header names made usable: blanks and duplicates get a column number so rows stay unambiguous. */
export function normalizeHeader(cells: string[]): string[] {
  const seen = new Map<string, number>();
  return cells.map((cell, i) => {
    const name = cell.replace(/\s+/g, ' ').trim() || `column ${i + 1}`;
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count > 1 ? `${name} (${count})` : name;
  });
}

/** "name: Ada; year: 1843" — every row carries its header so a chunk of rows reads on its own. */
export function rowText(header: string[], row: unknown[]): string {
  const parts: string[] = [];
  for (let i = 0; i < row.length; i++) {
    const value = String(row[i] ?? '')
      .replace(/\s+/g, ' ')
      .trim();
    if (!value) continue;
    parts.push(`${header[i] ?? `column ${i + 1}`}: ${value}`);
  }
  return parts.join('; ');
}

export function rowsToBlocks(rows: unknown[][]): { header: string[]; blocks: Block[] } {
  let nonEmpty = rows.filter((row) => row.some((cell) => String(cell ?? '').trim() !== ''));
  if (nonEmpty.length === 0) return { header: [], blocks: [] };
  const blocks: Block[] = [];
  // Spreadsheet exports often start with a caption row ("Stanley Cups,,") above the real header:
  // a row with one filled cell followed by a wider row is a caption, kept as a heading.
  const filled = (row: unknown[]) => row.filter((cell) => String(cell ?? '').trim() !== '').length;
  while (nonEmpty.length > 2 && filled(nonEmpty[0]) === 1 && filled(nonEmpty[1]) > 1) {
    const caption = nonEmpty[0].map((cell) => String(cell ?? '').trim()).find((cell) => cell !== '') ?? '';
    blocks.push({ type: 'heading', level: 1, text: caption });
    nonEmpty = nonEmpty.slice(1);
  }
  const header = normalizeHeader(nonEmpty[0].map((cell) => String(cell ?? '')));
  // A lone header row is still information (the column names); keep it as one block.
  if (nonEmpty.length === 1) return { header, blocks: [...blocks, { type: 'text', text: header.join('; ') }] };
  for (const row of nonEmpty.slice(1)) {
    const text = rowText(header, row);
    if (text) blocks.push({ type: 'text', text });
  }
  return { header, blocks };
}

export const csvParser: Parser = {
  name: 'csv',
  extensions: ['csv', 'tsv', 'tab'],
  mediaTypes: ['text/csv', 'text/tab-separated-values'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes);
    if (text.trim().length === 0) throw new DossierError('empty-document', 'empty CSV file');
    if (!looksLikeText(text)) throw new DossierError('parse-failed', 'binary data, not CSV');
    const ext = extname(path).slice(1).toLowerCase();
    const tsv = ext === 'tsv' || ext === 'tab';
    const result = Papa.parse<string[]>(text, {
      // Empty delimiter = auto-detect among , ; \t | (semicolon CSVs are common in Europe).
      delimiter: tsv ? '\t' : '',
      delimitersToGuess: [',', ';', '\t', '|'],
      skipEmptyLines: 'greedy',
    });
    const { header, blocks } = rowsToBlocks(result.data);
    if (!blocks.some((block) => block.type === 'text')) throw new DossierError('empty-document', 'no rows in CSV file');
    return {
      title: blocks[0].type === 'heading' ? blocks[0].text : fileStem(path),
      mediaType: tsv ? 'text/tab-separated-values' : 'text/csv',
      blocks,
      metadata: { columns: header, rows: blocks.filter((block) => block.type === 'text').length, delimiter: result.meta.delimiter },
    };
  },
};
