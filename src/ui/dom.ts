// Building the page: every element is made here, and whatever came from the server (answers,
// chunks, titles, errors) only ever goes in as text (textContent or text nodes), never as HTML.
import type { Usage } from '../client/index.ts';

/** An element of index.html by id (the page has them all). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

type Child = Node | string | null | undefined;
type PropValue = string | number | boolean | null | undefined;
/** `className`, `text` (the text content) and `onclick` are properties; any other name is an attribute. */
export interface ElementProps {
  className?: string;
  text?: string | number;
  onclick?: (event: MouseEvent) => void;
  [attribute: string]: PropValue | ((event: MouseEvent) => void);
}

/** A new element with text and attributes; children are nodes or strings (strings become text nodes). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'className') node.className = String(value);
    else if (name === 'text') node.textContent = String(value);
    else if (name === 'onclick') node.addEventListener('click', value as EventListener);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children)
    if (child !== undefined && child !== null) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  return node;
}

/** The status line under the header. */
export function showStatus(message: string, kind: 'info' | 'error' = 'info'): void {
  const box = byId('status');
  box.textContent = message;
  box.dataset.kind = kind;
}

export const formatMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
export const formatTokens = (usage: Usage | undefined) => (usage ? `${usage.inputTokens} in / ${usage.outputTokens} out tokens` : '');
export const truncate = (text: string, n: number) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
