import { Readability } from '@mozilla/readability';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Block, ParsedDocument, Parser } from '../types.ts';
import { htmlToBlocks, parseHtmlDocument, textLength, type DomDocument, type DomNode } from './html-blocks.ts';
import { titleFromFileName, titleFromHeadings } from './util.ts';

/** Navigation and page furniture, removed before choosing the main content. */
const BOILERPLATE = [
  'nav',
  'aside',
  'footer',
  'dialog',
  '[role="navigation"]',
  '[role="contentinfo"]',
  '[role="complementary"]',
  '[role="search"]',
  '[aria-hidden="true"]',
  '.sr-only',
  '.visually-hidden',
].join(', ');

/** Readability's pick must keep at least this share of the cleaned body, or we distrust it. */
const MIN_ARTICLE_SHARE = 0.3;

/** `<meta charset>` or `http-equiv` charset within the first bytes, read as ASCII. */
export function sniffHtmlCharset(bytes: Uint8Array): string | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head)?.[1];
}

function collapse(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

function metaContent(document: DomDocument, selector: string): string | undefined {
  return collapse(document.querySelector(selector)?.getAttribute('content')) || undefined;
}

function removeBoilerplate(document: DomDocument): void {
  for (const element of Array.from(document.querySelectorAll(BOILERPLATE))) element.remove();
  // A <header> inside an article is the article's own header (title, byline): keep that one.
  for (const element of Array.from(document.querySelectorAll('header'))) {
    let parent = element.parentNode;
    let inArticle = false;
    while (parent) {
      const name = parent.nodeName.toLowerCase();
      if (name === 'article' || name === 'main') inArticle = true;
      parent = parent.parentNode;
    }
    if (!inArticle) element.remove();
  }
}

/** HTML text → main-content blocks: boilerplate removal, then Readability when it agrees with the page. */
export function htmlToDocument(html: string, path: string): ParsedDocument {
  const document = parseHtmlDocument(html);
  const title =
    collapse(document.title) ||
    collapse(document.querySelector('title')?.textContent) ||
    metaContent(document, 'meta[property="og:title"]');
  const metadata: Record<string, unknown> = {};
  const lang = document.documentElement.getAttribute('lang');
  if (lang) metadata.language = lang;
  const description = metaContent(document, 'meta[name="description"]');
  if (description) metadata.description = description;
  const author = metaContent(document, 'meta[name="author"]');
  if (author) metadata.author = author;

  removeBoilerplate(document);
  const root = document.documentElement as DomNode;
  let blocks: Block[] = htmlToBlocks(root);
  const bodyLength = textLength(blocks);
  let extractor = 'body';
  if (bodyLength > 500) {
    try {
      // Readability mutates the document; the body blocks were taken already.
      const article = new Readability(document as never, { serializer: (node: unknown) => node }).parse();
      const content = article?.content as DomNode | null | undefined;
      if (content) {
        const articleBlocks = htmlToBlocks(content);
        if (textLength(articleBlocks) >= MIN_ARTICLE_SHARE * bodyLength) {
          blocks = articleBlocks;
          extractor = 'readability';
        }
      }
    } catch {
      // Readability is a heuristic; the cleaned body is a fine answer when it gives up.
    }
  }
  metadata.extractor = extractor;
  if (blocks.length === 0) throw new DossierError('empty-document', 'no text in HTML body');
  return {
    title: title || titleFromHeadings(blocks, { firstH1: true }) || titleFromFileName(path),
    mediaType: 'text/html',
    blocks,
    metadata,
  };
}

export const htmlParser: Parser = {
  name: 'html',
  extensions: ['html', 'htm', 'xhtml', 'shtml'],
  mediaTypes: ['text/html', 'application/xhtml+xml'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes, sniffHtmlCharset(bytes));
    if (text.trim().length === 0) throw new DossierError('empty-document', 'empty HTML file');
    if (!looksLikeText(text)) throw new DossierError('parse-failed', 'binary data, not HTML');
    return htmlToDocument(text, path);
  },
};
