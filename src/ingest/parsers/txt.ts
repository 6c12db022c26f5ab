import { extname } from 'node:path';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Parser } from '../types.ts';
import { TEXT_EXTENSIONS } from './text-extensions.ts';
import { fileStem, paragraphsOf } from './util.ts';

export { paragraphsOf } from './util.ts';

/**
 * Plain text and text-like sources (lightweight markup, config, source code) that have no parser of
 * their own: paragraphs at blank lines are the best structure we can claim without guessing.
 */
export const txtParser: Parser = {
  name: 'txt',
  extensions: [...TEXT_EXTENSIONS],
  mediaTypes: ['text/plain'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes).replace(/\r\n?/g, '\n');
    if (text.trim().length === 0) throw new DossierError('empty-document', 'no text in file');
    if (!looksLikeText(text)) throw new DossierError('parse-failed', 'binary data, not text');
    const blocks = paragraphsOf(text);
    const format = extname(path).slice(1).toLowerCase();
    return { title: fileStem(path), mediaType: 'text/plain', blocks, metadata: format && format !== 'txt' ? { format } : {} };
  },
};
