import { DossierError } from '../../errors/index.ts';
import type { Block, Parser } from '../types.ts';
import { tableText } from './pptx.ts';
import { entryText, fileStem, firstHeading, isZip, unzipEntries, usefulTitle } from './util.ts';
import { firstElementText, saxParse } from './xml-sax.ts';

/** OpenDocument text: <text:h outline-level> are headings, <text:p> paragraphs, tables read like CSV rows. */
export function odtBlocks(xml: string): Block[] {
  const blocks: Block[] = [];
  let paragraph: { heading?: number; text: string } | undefined;
  let depth = 0; // nesting of text:p / text:h (paragraphs can nest via frames and notes)
  let table: string[][] | undefined;
  let row: string[] | undefined;
  let cell: string[] | undefined;
  let skip = 0; // inside notes or annotations, whose text belongs elsewhere

  saxParse(xml, {
    onopentag(name, attribs) {
      if (name === 'office:annotation' || name === 'text:note' || name === 'text:tracked-changes') skip++;
      if (skip > 0) return;
      if (name === 'text:p' || name === 'text:h') {
        depth++;
        if (depth === 1) paragraph = { heading: name === 'text:h' ? Number(attribs['text:outline-level'] ?? 1) || 1 : undefined, text: '' };
      } else if (name === 'text:s' && paragraph) {
        paragraph.text += ' '.repeat(Number(attribs['text:c'] ?? 1) || 1);
      } else if ((name === 'text:tab' || name === 'text:line-break') && paragraph) {
        paragraph.text += name === 'text:tab' ? '\t' : '\n';
      } else if (name === 'table:table') table = [];
      else if (name === 'table:table-row') row = [];
      else if (name === 'table:table-cell') cell = [];
    },
    ontext(data) {
      if (skip === 0 && paragraph) paragraph.text += data;
    },
    onclosetag(name) {
      if (name === 'office:annotation' || name === 'text:note' || name === 'text:tracked-changes') {
        skip--;
        return;
      }
      if (skip > 0) return;
      if (name === 'text:p' || name === 'text:h') {
        depth--;
        if (depth === 0 && paragraph) {
          const text = paragraph.text.replace(/[ \t]+/g, ' ').trim();
          if (text) {
            if (cell) cell.push(text);
            else if (paragraph.heading) blocks.push({ type: 'heading', level: Math.min(paragraph.heading, 6), text });
            else blocks.push({ type: 'text', text });
          }
          paragraph = undefined;
        }
      } else if (name === 'table:table-cell' && row && cell) {
        row.push(cell.join(' '));
        cell = undefined;
      } else if (name === 'table:table-row' && table && row) {
        table.push(row);
        row = undefined;
      } else if (name === 'table:table' && table) {
        const text = tableText(table);
        if (text) blocks.push({ type: 'text', text });
        table = undefined;
      }
    },
  });
  return blocks;
}

export const odtParser: Parser = {
  name: 'odt',
  extensions: ['odt', 'ott'],
  mediaTypes: ['application/vnd.oasis.opendocument.text'],
  async parse({ path, bytes }) {
    if (bytes.byteLength === 0) throw new DossierError('empty-document', 'empty odt file');
    if (!isZip(bytes)) throw new DossierError('parse-failed', 'malformed odt: not a zip archive');
    const files = unzipEntries(bytes, 'odt', (name) => name === 'content.xml' || name === 'meta.xml' || name === 'META-INF/manifest.xml');
    const manifest = entryText(files, 'META-INF/manifest.xml');
    if (manifest && /manifest:encryption-data/.test(manifest)) throw new DossierError('encrypted-document', 'password-protected odt');
    const content = entryText(files, 'content.xml');
    if (!content) throw new DossierError('parse-failed', 'malformed odt: no content.xml part');
    const blocks = odtBlocks(content);
    if (blocks.length === 0) throw new DossierError('empty-document', 'no text in odt');
    const meta = entryText(files, 'meta.xml');
    const title = meta ? usefulTitle(firstElementText(meta, 'dc:title')) : undefined;
    const author = meta ? (firstElementText(meta, 'meta:initial-creator') ?? firstElementText(meta, 'dc:creator')) : undefined;
    return {
      title: title || firstHeading(blocks) || fileStem(path),
      mediaType: 'application/vnd.oasis.opendocument.text',
      blocks,
      metadata: author ? { author } : {},
    };
  },
};
