import { DossierError, oneLine } from '../../errors/index.ts';
import { decodeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { fenceLanguage, markdownToBlocks } from './markdown.ts';
import { fileStem, firstHeading } from './util.ts';

interface Cell {
  cell_type?: string;
  source?: string | string[];
  outputs?: { text?: string | string[]; data?: Record<string, unknown> }[];
}

function joined(source: unknown): string {
  if (Array.isArray(source)) return source.map(String).join('');
  return typeof source === 'string' ? source : '';
}

/** Jupyter notebooks: markdown cells keep their headings, code cells stay verbatim, text outputs follow. */
export const ipynbParser: Parser = {
  name: 'ipynb',
  extensions: ['ipynb'],
  mediaTypes: ['application/x-ipynb+json'],
  async parse({ path, bytes }) {
    let notebook: { cells?: Cell[]; metadata?: { title?: string; kernelspec?: { language?: string }; language_info?: { name?: string } } };
    try {
      notebook = JSON.parse(decodeText(bytes));
    } catch (error) {
      throw new DossierError('parse-failed', `malformed notebook: ${oneLine(error)}`, { cause: error });
    }
    if (typeof notebook !== 'object' || notebook === null || !Array.isArray(notebook.cells)) {
      throw new DossierError('parse-failed', 'malformed notebook: no cells array');
    }
    const blocks: Block[] = [];
    const language = notebook.metadata?.language_info?.name ?? notebook.metadata?.kernelspec?.language;
    const codeLanguage = fenceLanguage(language);
    for (const cell of notebook.cells) {
      const source = joined(cell.source);
      if (cell.cell_type === 'markdown') blocks.push(...markdownToBlocks(source));
      else if (source.trim() && cell.cell_type === 'code')
        blocks.push({ type: 'code', ...(codeLanguage ? { language: codeLanguage } : {}), text: source.replace(/\s+$/, '') });
      else if (source.trim()) blocks.push({ type: 'text', text: source.replace(/\s+$/, '') });
      for (const output of cell.outputs ?? []) {
        const text = joined(output.text ?? output.data?.['text/plain']).trim();
        if (text) blocks.push({ type: 'text', text });
      }
    }
    if (blocks.length === 0) throw new DossierError('empty-document', 'notebook has no cells with text');
    return {
      title: notebook.metadata?.title || firstHeading(blocks) || fileStem(path),
      mediaType: 'application/x-ipynb+json',
      blocks,
      metadata: language ? { language, cells: notebook.cells.length } : { cells: notebook.cells.length },
    };
  },
};
