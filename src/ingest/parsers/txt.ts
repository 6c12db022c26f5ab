import { DossierError } from '../../errors/index.ts';
import { decodeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { fileStem } from './util.ts';

/** Splits plain text into paragraph blocks at blank lines. */
export function paragraphsOf(text: string, page?: number): Block[] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph) => (page === undefined ? { type: 'text', text: paragraph } : { type: 'text', text: paragraph, page }));
}

export const txtParser: Parser = {
  name: 'txt',
  extensions: ['txt', 'text', 'log'],
  mediaTypes: ['text/plain'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes);
    const blocks = paragraphsOf(text);
    if (blocks.length === 0) throw new DossierError('empty-document', 'no text in file');
    return { title: fileStem(path), mediaType: 'text/plain', blocks, metadata: {} };
  },
};
