/**
 * DOM → Block[] walker shared by the html, docx (mammoth emits HTML), epub and eml parsers, so
 * every HTML-ish source keeps headings, paragraphs, lists and tables the same way.
 */
import { parseHTML } from 'linkedom';
import type { Block } from '../types.ts';

/** The slice of the DOM (linkedom's) that the walker needs; keeps us off the DOM lib typings. */
export interface DomNode {
  nodeType: number;
  nodeName: string;
  childNodes: ArrayLike<DomNode>;
  textContent: string | null;
  parentNode: DomNode | null;
}
export interface DomElement extends DomNode {
  localName: string;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  querySelector(selector: string): DomElement | null;
  remove(): void;
}
export interface DomDocument {
  body: DomElement | null;
  documentElement: DomElement;
  title: string;
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

const ELEMENT = 1;
const TEXT = 3;

/** Never content. */
const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'canvas',
  'iframe',
  'object',
  'embed',
  'head',
  'title',
  'select',
  'option',
  'button',
  'input',
  'textarea',
  'audio',
  'video',
  'map',
  'link',
  'meta',
]);

/** Elements that end the running paragraph. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'section',
  'summary',
  'ul',
  'caption',
  'thead',
  'tbody',
  'tfoot',
]);

/** Tables are emitted as blocks of rows; cap a block so one huge table does not become one block. */
const MAX_TABLE_BLOCK_CHARS = 2000;

export function parseHtmlDocument(html: string): DomDocument {
  // linkedom does not build an HTML5 tree: markup before <head> can leave <body> empty, so callers
  // walk documentElement (head, script and style are skipped anyway). Fragments get a wrapper.
  const source = /<html[\s>]/i.test(html.slice(0, 4096)) ? html : `<!doctype html><html><head></head><body>${html}</body></html>`;
  return parseHTML(source).document as unknown as DomDocument;
}

function collapse(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT;
}

function rowsOf(table: DomElement): DomElement[] {
  const rows: DomElement[] = [];
  const visit = (node: DomNode) => {
    for (const child of Array.from(node.childNodes)) {
      if (!isElement(child)) continue;
      if (child.localName === 'table') continue; // nested tables are flattened into their cell text
      if (child.localName === 'tr') rows.push(child);
      else visit(child);
    }
  };
  visit(table);
  return rows;
}

/** Cell text where <br> and block children separate words ("Bill Gates<br>Paul Allen"). */
function spacedText(node: DomNode): string {
  if (node.nodeType === TEXT) return node.textContent ?? '';
  if (!isElement(node)) return '';
  const tag = node.localName?.toLowerCase() ?? '';
  if (SKIP.has(tag)) return '';
  const inner = Array.from(node.childNodes).map(spacedText).join('');
  return tag === 'br' || BLOCK.has(tag) || tag === 'td' || tag === 'th' || tag === 'tr' ? ` ${inner} ` : inner;
}

function cellsOf(row: DomElement): { text: string; header: boolean }[] {
  return Array.from(row.childNodes)
    .filter(isElement)
    .filter((cell) => cell.localName === 'td' || cell.localName === 'th')
    .map((cell) => ({
      text: collapse(spacedText(cell)),
      header: cell.localName === 'th' || cell.parentNode?.nodeName.toLowerCase() === 'thead',
    }));
}

/** Old sites lay pages out with tables; a cell holding prose is layout, not data. */
const LAYOUT_CELL_CHARS = 400;

/** Rows keep their header ("Name: Ada; Year: 1843") when the table has a header row. */
function tableLines(table: DomElement): string[] {
  const rows = rowsOf(table)
    .map(cellsOf)
    .filter((cells) => cells.some((c) => c.text.length > 0));
  if (rows.length === 0) return [];
  const first = rows[0];
  const hasHeader = rows.length > 1 && first.every((c) => c.header) && first.some((c) => c.text.length > 0);
  const header = hasHeader ? first.map((c) => c.text) : undefined;
  const body = hasHeader ? rows.slice(1) : rows;
  const lines = body.map((cells) => {
    if (header && cells.length === header.length) {
      return cells
        .map((c, i) => (header[i] ? `${header[i]}: ${c.text}` : c.text))
        .filter((s, i) => cells[i].text.length > 0 && s.length > 0)
        .join('; ');
    }
    return cells
      .map((c) => c.text)
      .filter((t) => t.length > 0)
      .join(' | ');
  });
  return lines.filter((l) => l.length > 0);
}

/** `language-x` / `lang-x` (CommonMark, highlight.js, Prism), `highlight-x` (Sphinx), `sourceCode x` (pandoc). */
function languageOfClass(className: string | null): string | undefined {
  const classes = (className ?? '').split(/\s+/);
  for (const name of classes) {
    const match = /^(?:language|lang|highlight)-([\w+#.-]+)$/i.exec(name);
    if (match && !/^(?:none|default|text|plaintext)$/i.test(match[1])) return match[1].toLowerCase();
  }
  const sourceCode = classes.indexOf('sourceCode');
  return sourceCode >= 0 && classes[sourceCode + 1] ? classes[sourceCode + 1].toLowerCase() : undefined;
}

/** A `<pre>` that holds code: it wraps a `<code>`, or it or its wrapper names a language. Plain `<pre>` is preformatted text. */
function codeOf(pre: DomElement): { language?: string } | undefined {
  const inner = Array.from(pre.childNodes).find((child): child is DomElement => isElement(child) && child.localName === 'code');
  const parent = pre.parentNode && isElement(pre.parentNode) ? pre.parentNode : undefined;
  const grandparent = parent?.parentNode && isElement(parent.parentNode) ? parent.parentNode : undefined;
  const language =
    languageOfClass(inner?.getAttribute('class') ?? null) ??
    languageOfClass(pre.getAttribute('class')) ??
    languageOfClass(parent?.getAttribute('class') ?? null) ??
    languageOfClass(grandparent?.getAttribute('class') ?? null);
  if (!inner && !language && !/\bhighlight\b/.test(parent?.getAttribute('class') ?? '')) return undefined;
  return language ? { language } : {};
}

export interface WalkOptions {
  page?: number;
}

/** Walks a DOM subtree in reading order and returns heading and text blocks. */
export function htmlToBlocks(root: DomNode, options: WalkOptions = {}): Block[] {
  const blocks: Block[] = [];
  const page = options.page;
  let buffer = '';

  const push = (block: Block) => {
    if (page !== undefined) block.page = page;
    blocks.push(block);
  };
  const flush = () => {
    const text = buffer
      .split('\n')
      .map((line) => collapse(line))
      .filter((line) => line.length > 0)
      .join('\n');
    buffer = '';
    if (text.length > 0) push({ type: 'text', text });
  };

  const walk = (node: DomNode): void => {
    if (node.nodeType === TEXT) {
      // Source line breaks are just whitespace in HTML; only <br> and blocks break lines.
      buffer += (node.textContent ?? '').replace(/[ \t\n\r\f]+/g, ' ');
      return;
    }
    if (!isElement(node)) {
      // Documents and fragments: descend.
      if (node.nodeType === 9 || node.nodeType === 11) for (const child of Array.from(node.childNodes)) walk(child);
      return;
    }
    const tag = node.localName?.toLowerCase() ?? '';
    if (SKIP.has(tag)) return;
    if (node.getAttribute('hidden') !== null) return;
    const heading = /^h([1-6])$/.exec(tag);
    if (heading) {
      flush();
      const text = collapse(node.textContent ?? '');
      if (text) push({ type: 'heading', level: Number(heading[1]), text });
      return;
    }
    if (tag === 'br') {
      buffer += '\n';
      return;
    }
    if (tag === 'pre') {
      flush();
      // Code and preformatted text keep their line structure.
      const text = (node.textContent ?? '').replace(/\r\n?/g, '\n').replace(/^\n+|\s+$/g, '');
      const code = codeOf(node);
      if (code) {
        if (text.trim()) push(code.language ? { type: 'code', language: code.language, text } : { type: 'code', text });
        return;
      }
      // Long preformatted text (whole documents wrapped in <pre>) splits at blank lines.
      for (const part of text.split(/\n[ \t]*\n/)) if (part.trim()) push({ type: 'text', text: part.replace(/\s+$/, '') });
      return;
    }
    if (tag === 'table' && !rowsOf(node).some((row) => cellsOf(row).some((cell) => cell.text.length > LAYOUT_CELL_CHARS))) {
      flush();
      let chunk: string[] = [];
      let size = 0;
      for (const line of tableLines(node)) {
        if (size + line.length > MAX_TABLE_BLOCK_CHARS && chunk.length > 0) {
          push({ type: 'text', text: chunk.join('\n') });
          chunk = [];
          size = 0;
        }
        chunk.push(line);
        size += line.length + 1;
      }
      if (chunk.length > 0) push({ type: 'text', text: chunk.join('\n') });
      return;
    }
    if (tag === 'img') {
      const alt = collapse(node.getAttribute('alt') ?? '');
      if (alt) buffer += ` ${alt} `;
      return;
    }
    const isBlock = BLOCK.has(tag) || tag === 'table' || tag === 'tr' || tag === 'td' || tag === 'th';
    if (isBlock) flush();
    if (tag === 'li') buffer += '- ';
    for (const child of Array.from(node.childNodes)) walk(child);
    if (isBlock) flush();
  };

  walk(root);
  flush();
  return blocks;
}

/** Total characters of text in blocks; used to compare extraction candidates. */
export function textLength(blocks: Block[]): number {
  let n = 0;
  for (const block of blocks) n += block.text.length;
  return n;
}

/** Converts an HTML string (a fragment or a document) straight to blocks. */
export function htmlStringToBlocks(html: string, options: WalkOptions = {}): Block[] {
  const document = parseHtmlDocument(html);
  return htmlToBlocks(document.documentElement as DomNode, options);
}
