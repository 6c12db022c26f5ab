import ExcelJS from 'exceljs';
import { DossierError, oneLine } from '../../errors/index.ts';
import type { Block, Parser } from '../types.ts';
import { rowsToBlocks } from './csv.ts';
import { checkOoxmlContainer, fileStem, timeoutFor, usefulTitle, withTimeout } from './util.ts';
import { coreProperties } from './docx.ts';

/** Display text of a cell; exceljs throws on a few odd cell types, which must not cost the sheet. */
function cellText(cell: ExcelJS.Cell): string {
  try {
    // A merged range repeats its value in every covered cell; only the top-left one carries it.
    if (cell.isMerged && cell.master.address !== cell.address) return '';
    const value = cell.value;
    if (value instanceof Date) return value.toISOString().replace(/T00:00:00\.000Z$/, '');
    if (value && typeof value === 'object' && 'result' in value) return String(value.result ?? '');
    return cell.text ?? '';
  } catch {
    return '';
  }
}

/** Sheet by sheet: the sheet name is a heading, every row reads "header: value; …" like a CSV row. */
export const xlsxParser: Parser = {
  name: 'xlsx',
  extensions: ['xlsx', 'xlsm', 'xltx'],
  mediaTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  async parse({ path, bytes }) {
    checkOoxmlContainer(bytes, 'xlsx');
    const workbook = new ExcelJS.Workbook();
    try {
      // exceljs's Buffer typing predates @types/node's generic Buffer; the runtime value is fine.
      await withTimeout(
        workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as never),
        timeoutFor(bytes),
        'xlsx reading',
      );
    } catch (error) {
      if (DossierError.isInstance(error)) throw error;
      throw new DossierError('parse-failed', `malformed xlsx: ${oneLine(error).slice(0, 200)}`, { cause: error });
    }
    const blocks: Block[] = [];
    const sheets: string[] = [];
    for (const sheet of workbook.worksheets) {
      sheets.push(sheet.name);
      const rows: string[][] = [];
      sheet.eachRow({ includeEmpty: false }, (row) => {
        const cells: string[] = [];
        row.eachCell({ includeEmpty: true }, (cell, column) => {
          cells[column - 1] = cellText(cell);
        });
        rows.push(Array.from(cells, (c) => c ?? ''));
      });
      const { blocks: sheetBlocks } = rowsToBlocks(rows);
      if (sheetBlocks.length === 0) continue;
      blocks.push({ type: 'heading', level: 1, text: sheet.name });
      // A caption row inside the sheet nests under the sheet name.
      for (const block of sheetBlocks) blocks.push(block.type === 'heading' ? { ...block, level: 2 } : block);
    }
    if (!blocks.some((block) => block.type === 'text')) throw new DossierError('empty-document', 'no cell values in workbook');
    const core = coreProperties(bytes);
    const metadata: Record<string, unknown> = { sheets };
    if (core.author) metadata.author = core.author;
    return {
      title: usefulTitle(core.title) || fileStem(path),
      mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      blocks,
      metadata,
    };
  },
};
