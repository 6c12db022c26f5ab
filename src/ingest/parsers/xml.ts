import { DossierError, oneLine } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { htmlStringToBlocks } from './html-blocks.ts';
import { fileStem } from './util.ts';
import { saxParse } from './xml-sax.ts';

const MAX_BLOCK_CHARS = 2000;

/**
 * Generic XML (data files, RSS/Atom feeds): every element with text reads "element: text"; a block
 * per record (children of the first element with repeated children) keeps related fields together.
 */
export function xmlBlocks(xml: string): { blocks: Block[]; root?: string; title?: string } {
  const blocks: Block[] = [];
  const stack: { name: string; text: string }[] = [];
  let lines: string[] = [];
  let size = 0;
  let root: string | undefined;
  let title: string | undefined;
  const flush = () => {
    if (lines.length > 0) blocks.push({ type: 'text', text: lines.join('\n') });
    lines = [];
    size = 0;
  };
  saxParse(xml, {
    onopentag(name) {
      root ??= name;
      stack.push({ name, text: '' });
    },
    ontext(data) {
      const top = stack[stack.length - 1];
      if (top) top.text += data;
    },
    onclosetag() {
      const element = stack.pop();
      if (!element) return;
      let text = element.text.replace(/\s+/g, ' ').trim();
      // Feeds carry HTML inside elements (RSS <description>); keep its words, not its tags.
      if (/<\/?[a-z][^>]*>/i.test(text))
        text = htmlStringToBlocks(text)
          .map((b) => b.text)
          .join(' ');
      if (text) {
        const local = element.name.replace(/^.*:/, '');
        if (!title && local === 'title') title = text;
        lines.push(`${local}: ${text}`);
        size += text.length;
      }
      // Records sit two levels down (root > item, or rss > channel > item): close one, start a block.
      if ((stack.length === 1 || stack.length === 2) && size > 0 && (stack.length === 1 || size > MAX_BLOCK_CHARS / 4)) flush();
      if (size > MAX_BLOCK_CHARS) flush();
    },
  });
  flush();
  return { blocks, root, title };
}

export const xmlParser: Parser = {
  name: 'xml',
  extensions: ['xml', 'rss', 'atom', 'opml', 'svg'],
  mediaTypes: ['application/xml', 'text/xml', 'application/rss+xml', 'application/atom+xml'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes);
    if (text.trim().length === 0) throw new DossierError('empty-document', 'empty XML file');
    if (!looksLikeText(text) || !/^\s*</.test(text)) throw new DossierError('parse-failed', 'malformed XML: does not start with markup');
    let result: ReturnType<typeof xmlBlocks>;
    try {
      result = xmlBlocks(text);
    } catch (error) {
      throw new DossierError('parse-failed', `malformed XML: ${oneLine(error)}`, { cause: error });
    }
    if (result.blocks.length === 0) throw new DossierError('empty-document', 'no text in XML');
    return {
      title: result.title ?? fileStem(path),
      mediaType: result.root === 'rss' || result.root === 'feed' ? 'application/rss+xml' : 'application/xml',
      blocks: result.blocks,
      metadata: result.root ? { root: result.root } : {},
    };
  },
};
