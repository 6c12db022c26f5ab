import { decodeHTML } from 'entities';
import { Marked, type Token, type Tokens, type TokenizerExtension } from 'marked';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import type { Block, Parser } from '../types.ts';
import { htmlStringToBlocks } from './html-blocks.ts';
import { ADMONITIONS, CODE_DIRECTIVES, DIRECTIVE_LANGUAGE, DROPPED_DIRECTIVES, VERSIONS, reduceRole, rstToDocument } from './rst.ts';
import { titleFromFileName, titleFromHeadings } from './util.ts';

/**
 * A MyST colon-fenced directive (`:::{note}` … `:::`; also Docusaurus/VitePress `:::note` and
 * `::: tip`), or a mkdocstrings `::: package.name` with its indented options (`name` empty then).
 */
interface ColonFence extends Tokens.Generic {
  type: 'colonFence';
  name: string;
  argument: string;
  body: string;
  /** ":::tip Title" (Docusaurus, VitePress): the rest of the line is a title, not content. */
  bare?: boolean;
}

const colonFence: TokenizerExtension = {
  name: 'colonFence',
  level: 'block',
  // Where a fence could cut the paragraph that starts `src`: only up to that paragraph's first blank
  // line (a fence after it cannot interrupt it). Scanning the whole rest of the file for every
  // paragraph made a big Markdown file quadratic (4 MB took 26 s).
  start: (src) => {
    const end = /\n[ \t]*\n/.exec(src)?.index ?? src.length;
    return /^ {0,3}:{3,}/m.exec(end === src.length ? src : src.slice(0, end))?.index;
  },
  tokenizer(src) {
    const autodoc = /^ {0,3}:::[ \t]+([A-Za-z_]\w*(?:\.\w+)+)[ \t]*(?:\n[ \t]+\S[^\n]*)*(?:\n|$)/.exec(src);
    if (autodoc) return { type: 'colonFence', raw: autodoc[0], name: '', argument: autodoc[1], body: '' } satisfies ColonFence;
    // Closed by a line of exactly as many colons (nested fences use fewer). An unclosed {name} fence
    // runs to the end, as in MyST; an unclosed bare ":::word" is just text.
    const match =
      /^ {0,3}(:{3,})[ \t]*(?:\{([A-Za-z][\w:.+-]*)\}|([A-Za-z][\w-]*)(?=\s|$))[ \t]*([^\n]*)(?:\n([\s\S]*?))?(\n {0,3}\1(?!:)[ \t]*(?:\n|$)|$)/.exec(
        src,
      );
    if (!match || (!match[6] && !match[2])) return undefined;
    return {
      type: 'colonFence',
      raw: match[0],
      name: match[2] ?? match[3],
      argument: match[4].trim(),
      body: match[5] ?? '',
      bare: !match[2],
    } satisfies ColonFence;
  },
};

/**
 * A Python-Markdown/MkDocs container whose body is indented by four spaces: an admonition
 * (`!!! note "Title"`), a collapsible one (`??? tip`, `???+ tip`) or a content tab (`=== "Tab"`).
 * Without this its body would read as an indented code block.
 */
interface IndentedContainer extends Tokens.Generic {
  type: 'indentedContainer';
  kind: string;
  /** The quoted title; undefined when there is none, '' for an explicit empty one (no title shown). */
  title?: string;
  body: string;
}

const indentedContainer: TokenizerExtension = {
  name: 'indentedContainer',
  level: 'block',
  start: (src) => {
    const end = /\n[ \t]*\n/.exec(src)?.index ?? src.length;
    return /^ {0,3}(?:!!!|\?\?\?\+?|===\+?)[ \t]/m.exec(end === src.length ? src : src.slice(0, end))?.index;
  },
  tokenizer(src) {
    const head = /^ {0,3}(?:(?:!!!|\?\?\?\+?)[ \t]+([\w-]+)(?:[ \t]+"([^"\n]*)")?|===\+?[ \t]+"([^"\n]*)")[ \t]*(?:\n|$)/.exec(src);
    if (!head) return undefined;
    const body = /^(?:[ \t]*\n|(?: {4}|\t)[^\n]*(?:\n|$))*/.exec(src.slice(head[0].length))![0];
    const kept = body.replace(/(?:^|\n)[ \t]*$/, '').replace(/\s+$/, '');
    return {
      type: 'indentedContainer',
      raw: head[0] + body,
      kind: head[1] ?? 'tab',
      title: head[1] ? head[2] : head[3],
      body: kept.replace(/^(?: {4}|\t)/gm, ''),
    } satisfies IndentedContainer;
  },
};

const markdown = new Marked().use({ extensions: [colonFence, indentedContainer] });

/** The language a fence's info string names: its first word ("python" of `python title="app.py"`, `{.python}`). */
export function fenceLanguage(info: string | undefined): string | undefined {
  const word = /^\{?\.?([\w+#.-]+)/.exec((info ?? '').trim())?.[1];
  return word ? word.toLowerCase() : undefined;
}

// MyST roles: marked reads {role}`text` as text ending in "{role}" followed by a code span.
const ROLE_PREFIX = /\{([A-Za-z][\w:.+-]*)\}$/;

/** Plain text of inline tokens: emphasis and links keep their words, markup goes. */
function inlineText(tokens: Token[] | undefined, fallback = ''): string {
  if (!tokens) return decodeHTML(fallback);
  let out = '';
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const role = token.type === 'text' && tokens[i + 1]?.type === 'codespan' ? ROLE_PREFIX.exec((token as Tokens.Text).text) : null;
    if (role) {
      out += decodeHTML((token as Tokens.Text).text.slice(0, role.index)) + reduceRole(role[1], (tokens[i + 1] as Tokens.Codespan).text);
      i++;
      continue;
    }
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
        out +=
          'tokens' in token && Array.isArray(token.tokens)
            ? inlineText(token.tokens)
            : decodeHTML('text' in token ? String(token.text) : '');
    }
  }
  return out;
}

/**
 * A list as text lines ("- item", "1. step", nested items indented). A code block inside an item
 * (the command a step runs) cannot be a line of text: the lines so far become a text block, the code
 * its own code block, and the list goes on after it.
 */
function listBlocks(list: Tokens.List, depth: number, lines: string[], out: Block[]): void {
  list.items.forEach((item, index) => {
    const marker = list.ordered ? `${(typeof list.start === 'number' ? list.start : 1) + index}.` : '-';
    const checkbox = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    let own: string[] = [];
    let opened = false;
    // The item's line (its text so far), or a continuation line under it for text after a nested list or code.
    const emit = () => {
      const text = own.filter(Boolean).join(' ');
      if (!opened) lines.push(`${'  '.repeat(depth)}${marker} ${checkbox}${text}`);
      else if (text) lines.push(`${'  '.repeat(depth)}${' '.repeat(marker.length + 1)}${text}`);
      opened = true;
      own = [];
    };
    for (const token of item.tokens) {
      if (token.type === 'list') {
        emit();
        listBlocks(token as Tokens.List, depth + 1, lines, out);
      } else if (token.type === 'code') {
        emit();
        flushLines(lines, out);
        blocksOf([token], out);
      } else own.push(inlineText((token as Tokens.Generic).tokens, (token as Tokens.Generic).text ?? '').trim());
    }
    if (!opened || own.length) emit();
  });
  if (depth === 0) flushLines(lines, out);
}

function flushLines(lines: string[], out: Block[]): void {
  const text = lines.join('\n').trim();
  if (text) out.push({ type: 'text', text });
  lines.length = 0;
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
      case 'code': {
        const directive = /^\{([A-Za-z][\w:.+-]*)\}\s*(.*)$/.exec(token.lang ?? '');
        if (directive) out.push(...directiveBlocks(directive[1], directive[2], token.text));
        // Fenced and indented code stays verbatim: identifiers are what people search for.
        else if (token.text.trim())
          out.push(codeBlock(token.text, token.codeBlockStyle === 'indented' ? undefined : fenceLanguage(token.lang)));
        break;
      }
      case 'indentedContainer': {
        const container = token as IndentedContainer;
        const label =
          container.title !== undefined
            ? inlineMarkdown(container.title)
            : (ADMONITIONS[container.kind.toLowerCase()] ?? capitalised(container.kind));
        const blocks = bodyBlocks(container.body);
        out.push(...(label && blocks.length ? prefixFirst(blocks, `${label}:`) : blocks));
        break;
      }
      case 'colonFence': {
        const fence = token as ColonFence;
        if (fence.name && fence.bare) out.push(...titledBlocks(fence.argument || capitalised(fence.name), fence.body));
        else if (fence.name) out.push(...directiveBlocks(fence.name, fence.argument, fence.body));
        else out.push({ type: 'text', text: fence.argument }); // what mkdocstrings documents there
        break;
      }
      case 'paragraph':
      case 'text': {
        // MyST targets "(label)=" and block breaks "+++" are markup, not words.
        const text = inlineText(token.tokens, token.text)
          .replace(/^\([^()\s]+\)=[ \t]*(\n|$)/, '')
          .replace(/^\+\+\+(?:[ \t].*)?$/, '')
          .trim();
        if (text) out.push({ type: 'text', text });
        break;
      }
      case 'list':
        listBlocks(token as Tokens.List, 0, [], out);
        break;
      case 'table': {
        const text = tableLines(token as Tokens.Table)
          .join('\n')
          .trim();
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

/** Code as a code block: verbatim but for blank lines at its edges. */
function codeBlock(text: string, language: string | undefined): Block {
  const code = text.replace(/^(?:[ \t]*\n)+/, '').trimEnd();
  return language ? { type: 'code', language, text: code } : { type: 'code', text: code };
}

const capitalised = (word: string) => word.replace(/^\w/, (c) => c.toUpperCase());

/** Plain text of one line of Markdown (a directive's title). */
function inlineMarkdown(text: string): string {
  const [first] = markdown.lexer(text);
  return (first?.type === 'paragraph' ? inlineText((first as Tokens.Paragraph).tokens, text) : text).trim();
}

/** Leading ":key: value" lines or a `---` YAML block: a MyST directive's options, not its content. */
function directiveOptions(body: string): { options: Record<string, string>; content: string } {
  const options: Record<string, string> = {};
  const lines = body.split('\n');
  let i = 0;
  if (lines[0]?.trim() === '---') {
    const end = lines.indexOf('---', 1);
    if (end > 0) {
      for (const line of lines.slice(1, end)) {
        const option = /^([\w-]+):\s*(.*)$/.exec(line.trim());
        if (option) options[option[1].toLowerCase()] = option[2].replace(/^["']|["']$/g, '');
      }
      i = end + 1;
    }
  }
  for (; i < lines.length; i++) {
    const option = /^:([\w-]+):(?:\s+(.*))?$/.exec(lines[i].trim());
    if (!option) break;
    options[option[1].toLowerCase()] = (option[2] ?? '').trim();
  }
  return {
    options,
    content: lines
      .slice(i)
      .join('\n')
      .replace(/^\s*\n/, '')
      .trimEnd(),
  };
}

/** A directive's body: headings inside it are part of it, not sections of the document. */
function bodyBlocks(source: string): Block[] {
  return markdownToBlocks(source).map((block): Block => (block.type === 'heading' ? { type: 'text', text: block.text } : block));
}

function prefixFirst(blocks: Block[], prefix: string): Block[] {
  const index = blocks.findIndex((block) => block.type === 'text');
  if (index !== 0) return [{ type: 'text', text: prefix }, ...blocks];
  return [{ type: 'text', text: `${prefix} ${blocks[0].text}` }, ...blocks.slice(1)];
}

/**
 * MyST directives reduced to what the rendered page shows, as the RST parser does: admonitions keep
 * their body (Markdown) as text, code directives stay code, toctrees and includes go.
 */
function directiveBlocks(fullName: string, argument: string, body: string): Block[] {
  const name = (fullName.toLowerCase().split(':').pop() ?? '').trim();
  const { options, content } = directiveOptions(body);
  if ((name === 'include' || name === 'literalinclude') && argument.trim()) includeSink?.push(argument.trim());
  if (DROPPED_DIRECTIVES.has(name)) return [];
  if (CODE_DIRECTIVES.has(name) || name === 'code-cell') {
    const code = content.replace(/^\n+|\s+$/g, '');
    if (!code.trim()) return [];
    const language = fenceLanguage(argument) ?? fenceLanguage(options.language) ?? DIRECTIVE_LANGUAGE[name];
    return [...(options.caption ? [{ type: 'text' as const, text: options.caption }] : []), codeBlock(code, language)];
  }
  if (name === 'eval-rst')
    return rstToDocument(content).blocks.map((block) => (block.type === 'heading' ? { type: 'text', text: block.text } : block));
  if (name === 'math') return content.trim() ? [{ type: 'text', text: content.trim() }] : [];
  if (ADMONITIONS[name]) {
    const blocks = bodyBlocks([argument, content].filter(Boolean).join('\n\n'));
    return blocks.length ? prefixFirst(blocks, `${ADMONITIONS[name]}:`) : [];
  }
  if (VERSIONS[name]) {
    const [version = '', ...rest] = argument.split(/\s+/);
    const label = `${VERSIONS[name]} ${version}`.trim();
    const blocks = bodyBlocks([rest.join(' '), content].filter(Boolean).join('\n\n'));
    return blocks.length ? prefixFirst(blocks, `${label}:`) : [{ type: 'text', text: `${label}.` }];
  }
  if (name === 'image') return options.alt ? [{ type: 'text', text: options.alt }] : [];
  if (name === 'figure') return bodyBlocks(content);
  if (name === 'admonition') return titledBlocks(argument, content);
  const blocks = bodyBlocks(content);
  const title = argument ? inlineMarkdown(argument) : '';
  return title && blocks.length ? [{ type: 'text', text: title }, ...blocks] : blocks;
}

/** An admonition with its own title: "Title: first paragraph", the rest as it is. */
function titledBlocks(title: string, content: string): Block[] {
  const blocks = bodyBlocks(content);
  const label = inlineMarkdown(title);
  return label && blocks.length ? prefixFirst(blocks, `${label}:`) : blocks;
}

export interface FrontMatter {
  body: string;
  metadata: Record<string, unknown>;
}

/** Dates and other non-JSON values of a YAML/TOML document become what JSON makes of them. */
function plainJson(value: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? Number(v) : v))) as Record<string, unknown>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Front matter: YAML between `---` lines (or TOML between `+++` lines) at the top. Every key becomes
 * document metadata; the block is stripped from the body. A `---` block that is not a YAML mapping
 * is Markdown (a thematic break), not front matter.
 */
export async function splitFrontMatter(text: string): Promise<FrontMatter> {
  const yamlBlock = /^---[ \t]*\n(?:([\s\S]*?)\n)?(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (yamlBlock) {
    const source = yamlBlock[1] ?? '';
    const { parse } = await import('yaml');
    let value: unknown;
    try {
      value = parse(source);
    } catch {
      // Broken YAML that still looks like front matter ("key: value" first) is stripped; its simple lines kept.
      if (!/^[\w-]+\s*:/.test(source.trimStart())) return { body: text, metadata: {} };
      const metadata: Record<string, unknown> = {};
      for (const line of source.split('\n')) {
        const pair = /^([\w-]+)\s*:\s*(.+?)\s*$/.exec(line);
        if (pair) metadata[pair[1]] = pair[2].replace(/^(["'])(.*)\1$/, '$2');
      }
      return { body: text.slice(yamlBlock[0].length), metadata };
    }
    if (value === null || value === undefined) return { body: text.slice(yamlBlock[0].length), metadata: {} };
    if (!isPlainObject(value)) return { body: text, metadata: {} };
    return { body: text.slice(yamlBlock[0].length), metadata: plainJson(value) };
  }
  const tomlBlock = /^\+\+\+[ \t]*\n(?:([\s\S]*?)\n)?\+\+\+[ \t]*(?:\n|$)/.exec(text);
  if (tomlBlock) {
    const { parse } = await import('smol-toml');
    let value: unknown = {};
    try {
      value = parse(tomlBlock[1] ?? '');
    } catch {
      value = {};
    }
    return { body: text.slice(tomlBlock[0].length), metadata: isPlainObject(value) ? plainJson(value) : {} };
  }
  return { body: text, metadata: {} };
}

/** Where `{include}` targets go while markdownToBlocks runs (it is synchronous; nested calls share the outer list). */
let includeSink: string[] | undefined;

/** `includes`, when given, collects the targets of MyST `{include}` / `{literalinclude}` directives. */
export function markdownToBlocks(source: string, includes?: string[]): Block[] {
  const outer = includeSink;
  includeSink = includes ?? outer;
  try {
    const blocks: Block[] = [];
    blocksOf(markdown.lexer(source), blocks);
    return blocks;
  } finally {
    includeSink = outer;
  }
}

export const markdownParser: Parser = {
  name: 'markdown',
  extensions: ['md', 'markdown', 'mdown', 'mkd', 'mdx'],
  mediaTypes: ['text/markdown', 'text/x-markdown'],
  async parse({ path, bytes }) {
    const text = decodeText(bytes).replace(/\r\n?/g, '\n');
    if (text.trim().length === 0) throw new DossierError('empty-document', 'empty Markdown file');
    if (!looksLikeText(text)) throw new DossierError('parse-failed', 'binary data, not Markdown');
    const { body, metadata } = await splitFrontMatter(text);
    const includes: string[] = [];
    const blocks = markdownToBlocks(body, includes);
    const hasOwnText = blocks.some((block) => block.type !== 'heading');
    if (blocks.length === 0 && !includes.length) throw new DossierError('empty-document', 'no text in Markdown file');
    const title =
      typeof metadata.title === 'string' || typeof metadata.title === 'number'
        ? String(metadata.title).replace(/\s+/g, ' ').trim().slice(0, 300)
        : '';
    return {
      title: title || titleFromHeadings(blocks, { firstH1: true }) || titleFromFileName(path),
      mediaType: 'text/markdown',
      blocks,
      metadata,
      ...(includes.length ? { includes, hasOwnText } : {}),
    };
  },
};
