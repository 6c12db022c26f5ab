import { DossierError } from '../../errors/index.ts';
import type { Block, Parser } from '../types.ts';
import { htmlToBlocks, parseHtmlDocument, type DomNode } from './html-blocks.ts';
import { entryText, fileStem, isZip, resolveZipPath, unzipEntries, usefulTitle } from './util.ts';
import { elementsAttributes, firstElementText } from './xml-sax.ts';

/** EPUB: container.xml → package (OPF) → spine order; each XHTML chapter goes through the HTML walker. */
export const epubParser: Parser = {
  name: 'epub',
  extensions: ['epub'],
  mediaTypes: ['application/epub+zip'],
  async parse({ path, bytes }) {
    if (bytes.byteLength === 0) throw new DossierError('empty-document', 'empty epub file');
    if (!isZip(bytes)) throw new DossierError('parse-failed', 'malformed epub: not a zip archive');
    const files = unzipEntries(bytes, 'epub', (name) => !/\.(png|jpe?g|gif|svg|webp|ttf|otf|woff2?|mp3|mp4|css)$/i.test(name));
    const container = entryText(files, 'META-INF/container.xml');
    const opfPath = container ? elementsAttributes(container, 'rootfile')[0]?.['full-path'] : undefined;
    const opf = opfPath ? entryText(files, opfPath) : undefined;
    if (!opfPath || !opf) throw new DossierError('parse-failed', 'malformed epub: no package document (META-INF/container.xml)');

    const manifest = new Map<string, { href: string; type: string }>();
    for (const item of elementsAttributes(opf, 'item')) {
      if (item.id && item.href) manifest.set(item.id, { href: resolveZipPath(opfPath, item.href), type: item['media-type'] ?? '' });
    }
    const spine = elementsAttributes(opf, 'itemref')
      .map((ref) => manifest.get(ref.idref ?? ''))
      .filter((item): item is { href: string; type: string } => item !== undefined && /html|xml/.test(item.type));

    // DRM encrypts chapter files (font obfuscation, also listed there, only touches fonts).
    const encryption = entryText(files, 'META-INF/encryption.xml');
    if (encryption) {
      const encrypted = new Set(
        elementsAttributes(encryption, 'enc:CipherReference')
          .concat(elementsAttributes(encryption, 'CipherReference'))
          .map((ref) => ref.URI ?? ''),
      );
      if (spine.some((item) => [...encrypted].some((uri) => uri && item.href.endsWith(uri)))) {
        throw new DossierError('encrypted-document', 'DRM-protected epub');
      }
    }

    const blocks: Block[] = [];
    let chapters = 0;
    for (const item of spine) {
      const xhtml = entryText(files, item.href);
      if (!xhtml) continue;
      const document = parseHtmlDocument(xhtml);
      const chapterBlocks = htmlToBlocks(document.documentElement as DomNode);
      if (chapterBlocks.length > 0) chapters++;
      blocks.push(...chapterBlocks);
    }
    if (blocks.length === 0) throw new DossierError('empty-document', `no text in ${spine.length} epub chapters`);
    const title = usefulTitle(firstElementText(opf, 'dc:title'));
    const metadata: Record<string, unknown> = { chapters };
    const author = firstElementText(opf, 'dc:creator');
    if (author) metadata.author = author;
    const language = firstElementText(opf, 'dc:language');
    if (language) metadata.language = language;
    return { title: title || fileStem(path), mediaType: 'application/epub+zip', blocks, metadata };
  },
};
