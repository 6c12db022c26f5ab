// Code shown as code: a passage's or an answer's fenced blocks as <pre><code>, `inline code` as
// <code>, the rest as paragraphs. Everything goes in as text nodes (dom.ts): retrieved text is data,
// so no Markdown is ever turned into HTML.
import { splitCodeBlocks, splitInlineCode, type TextBlock } from '../protocol/code-blocks.ts';
import { el } from './dom.ts';

/** Plain text as nodes; the answer passes one that makes citation markers into buttons. */
export type PlainNodes = (text: string) => Array<Node | string>;
const asText: PlainNodes = (text) => [text];

/** `text`'s code spans as <code>, the rest through `plain`. */
export function inlineNodes(text: string, plain: PlainNodes = asText): Array<Node | string> {
  return splitInlineCode(text).flatMap((span) => (span.code ? [el('code', { text: span.text })] : plain(span.text)));
}

/** A fenced block as <pre><code class="language-x">, its lines verbatim. */
export function codeBlock(block: Extract<TextBlock, { kind: 'code' }>): HTMLPreElement {
  const language = block.language ? `language-${block.language}` : undefined;
  return el('pre', { className: 'code-block', 'data-language': block.language }, el('code', { className: language, text: block.text }));
}

/** A passage (chunk text): paragraphs at blank lines, each keeping its own line breaks, and its code blocks. */
export function passageNodes(text: string): HTMLElement[] {
  return splitCodeBlocks(text).flatMap((block): HTMLElement[] =>
    block.kind === 'code'
      ? [codeBlock(block)]
      : block.text
          .split(/\n(?:[ \t]*\n)+/)
          .filter((paragraph) => paragraph.trim())
          .map((paragraph) => el('p', {}, ...inlineNodes(paragraph.replace(/^\n+|\n+$/g, '')))),
  );
}
