import { decodeHTML } from 'entities';
import { Lexer, type Token, type Tokens } from 'marked';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { htmlStringToBlocks } from './html-blocks.ts';
import { fileStem, firstHeading } from './util.ts';

/** Plain text of inline tokens: emphasis and links keep their words, markup goes. */
function inlineText(tokens: Token[] | undefined, fallback = ''): string {
  if (!tokens) return decodeHTML(fallback);
  let out = '';
  for (const token of tokens) {
    switch (token.type) {
      case 'text':
        out += 'tokens' in token && token.tokens ? inlineText(token.tokens) : decodeHTML(token.text);
        break;
      case 'escape':
      case 'codespan':
        out += token.text;
        break;
      case 'br':
        out += '\n';
        break;
      case 'html':
        break; // inline tags (<b>, <br>) carry no words of their own
      case 'image':
        out += token.text;
        break;
      default:
        out += 'tokens' in token && Array.isArray(token.tokens) ? inlineText(token.tokens) : decodeHTML('text' in token ? String(token.text) : '');
    }
  }
  return out;
}

function listLines(list: Tokens.List, depth: number): string[] {
  const lines: string[] = [];
  list.items.forEach((item, index) => {
    const marker = list.ordered ? `${(typeof list.start === 'number' ? list.start : 1) + index}.` : '-';
    const own: string[] = [];
    const nested: string[] = [];
    for (const token of item.tokens) {
      if (token.type === 'list') nested.push(...listLines(token as Tokens.List, depth + 1));
      else own.push(inlineText((token as Tokens.Generic).tokens, (token as Tokens.Generic).text ?? '').trim());
    }
    const checkbox = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    lines.push(`${'  '.repeat(depth)}${marker} ${checkbox}${own.filter(Boolean).join(' ')}`);
    lines.push(...nested);
  });
  return lines;
}

function tableLines(table: Tokens.Table): string[] {
  const header = table.header.map((cell) => inlineText(cell.tokens, cell.text).trim());
  return table.rows.map((row) =>
    row
      .map((cell, i) => {
        const value = inlineText(cell.tokens, cell.text).trim();
        return header[i] ? `${header[i]}: ${value}` : value;
      })
      .join('; '),
  );
}

function blocksOf(tokens: Token[], out: Block[]): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'heading': {
        const text = inlineText(token.tokens, token.text).trim();
        if (text) out.push({ type: 'heading', level: token.depth, text });
        break;
      }
      case 'code':
        // Fenced and indented code stays verbatim: identifiers are what people search for.
        if (token.text.trim()) out.push({ type: 'text', text: token.text });
        break;
      case 'paragraph':
      case 'text': {
        const text = inlineText(token.tokens, token.text).trim();
        if (text) out.push({ type: 'text', text });
        break;
      }
      case 'list': {
        const text = listLines(token as Tokens.List, 0).join('\n').trim();
        if (text) out.push({ type: 'text', text });
        break;
      }
      case 'table': {
        const text = tableLines(token as Tokens.Table).join('\n').trim();
        if (text) out.push({ type: 'text', text });
        break;
      }
      case 'blockquote':
        blocksOf(token.tokens ?? [], out);
        break;
      case 'html':
        out.push(...htmlStringToBlocks(token.text));
        break;
      default:
        break; // space, hr, def: nothing to read
    }
  }
}

/** YAML front matter: stripped from the body; a `title:` line becomes the title. */
function splitFrontMatter(text: string): { body: string; title?: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)\r?\n/.exec(text);
  if (!match) return { body: text };
  const title = /^title:\s*["']?(.+?)["']?\s*$/m.exec(match[1])?.[1];
  return { body: text.slice(match[0].length), title };
}

export function markdownToBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  blocksOf(Lexer.lex(markdown), blocks);
  return blocks;
}

export const markdownParser: Parser = {
  name: 'markdown',
  extensions: ['md', 'markdown', 'mdown', 'mkd', 'mdx'],
  mediaTypes: ['text/markdown', 'text/x-markdown'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes).replace(/\r\n?/g, '\n');
    if (text.trim().length === 0) throw new DossierError('empty-document', 'empty Markdown file');
    if (!looksLikeText(text)) throw new DossierError('parse-failed', 'binary data, not Markdown');
    const { body, title } = splitFrontMatter(text);
    const blocks = markdownToBlocks(body);
    if (blocks.length === 0) throw new DossierError('empty-document', 'no text in Markdown file');
    return { title: title || firstHeading(blocks) || fileStem(path), mediaType: 'text/markdown', blocks, metadata: {} };
  },
};
