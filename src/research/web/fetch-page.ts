/**
 * Fetches one web page for research mode, through the address guard at every hop: the host is
 * resolved and vetted first, the connection is pinned to the vetted address, redirects are followed
 * by hand and vetted again. The body is read up to a byte cap within a time cap, and HTML becomes
 * Markdown of its main content (Readability, falling back to the cleaned body).
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Readability } from '@mozilla/readability';
import TurndownService from 'turndown';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../../ingest/encoding.ts';
import { parseHtmlDocument, type DomDocument, type DomElement } from '../../ingest/parsers/html-blocks.ts';
import { sniffHtmlCharset } from '../../ingest/parsers/html.ts';
import { AllowList, pinnedLookup, vetUrl, type LookupAll, type VettedTarget } from './address-guard.ts';

export interface FetchPageOptions {
  /** Bytes of (decompressed) body read at most; the rest is dropped and the result says `truncated`. Default 2 MB. */
  maxBytes?: number;
  /** The whole fetch, redirects included. Default 15 000 ms. */
  timeoutMs?: number;
  /** Default 5. */
  maxRedirects?: number;
  /** Hosts, addresses and CIDR ranges let through although not public (DOSSIER_WEB_ALLOW). */
  allow?: readonly string[];
  signal?: AbortSignal;
  /** Resolves host names (default dns.promises.lookup); tests inject one. */
  lookup?: LookupAll;
}

export interface FetchedPage {
  /** As asked. */
  url: string;
  /** After redirects. */
  finalUrl: string;
  title: string;
  markdown: string;
  /** ISO time the response arrived. */
  fetchedAt: string;
  /** Media type without parameters, e.g. "text/html". */
  contentType: string;
  /** The body was longer than `maxBytes` and was cut there. */
  truncated: boolean;
  /** Body bytes read. */
  bytes: number;
}

export const FETCH_DEFAULTS = { maxBytes: 2 * 1024 * 1024, timeoutMs: 15_000, maxRedirects: 5 } as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXT_TYPES = new Set(['text/plain', 'text/markdown', 'text/x-markdown']);
const USER_AGENT = 'Dossier/1 (research agent; +https://github.com/)';

/** Fetches `url` and returns its main content as Markdown; refusals are DossierError 'blocked-address'. */
export async function fetchPage(url: string, options: FetchPageOptions = {}): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? FETCH_DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs;
  const maxRedirects = options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects;
  options.signal?.throwIfAborted();
  const allowList = new AllowList(options.allow);
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  // Which signal fired decides the error: the caller's abort passes through, the deadline is a timeout.
  const failure = (error: unknown): unknown => {
    if (options.signal?.aborted) return options.signal.reason ?? error;
    if (deadline.aborted) return new DossierError('remote-timeout', `timed out after ${timeoutMs} ms fetching ${url.slice(0, 200)}`);
    return error;
  };
  try {
    let current = url;
    for (let hop = 0; ; hop++) {
      // dns.lookup cannot be cancelled; racing it keeps the time cap honest when a resolver hangs.
      const target = await untilAborted(vetUrl(current, { allowList, lookup: options.lookup }), signal);
      const response = await get(target, signal);
      const status = response.statusCode ?? 0;
      if (REDIRECTS.has(status) && response.headers.location) {
        response.destroy();
        if (hop >= maxRedirects)
          throw new DossierError('remote-failed', `too many redirects (more than ${maxRedirects}) fetching ${url.slice(0, 200)}`);
        current = new URL(response.headers.location, target.url).href;
        continue;
      }
      if (status < 200 || status >= 300) {
        response.destroy();
        throw new DossierError('remote-failed', `HTTP ${status} fetching ${target.url.href.slice(0, 200)}`);
      }
      const fetchedAt = new Date().toISOString();
      const [mediaType, charset] = contentTypeOf(response.headers['content-type']);
      if (mediaType && !HTML_TYPES.has(mediaType) && !TEXT_TYPES.has(mediaType)) {
        response.destroy();
        throw new DossierError(
          'unsupported-format',
          `${target.url.href.slice(0, 200)} is ${mediaType}; only HTML, plain text and Markdown pages are read`,
        );
      }
      const { bytes, truncated } = await readCapped(response, maxBytes);
      const finalUrl = target.url.href;
      const page = toMarkdown(bytes, mediaType, charset, finalUrl);
      return { url, finalUrl, fetchedAt, truncated, bytes: bytes.byteLength, ...page };
    }
  } catch (error) {
    throw failure(error);
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** One GET to the vetted address; resolves with the response head. */
function get(target: VettedTarget, signal: AbortSignal): Promise<IncomingMessage> {
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(target.url, {
      method: 'GET',
      // A fresh connection per request: a pooled socket was vetted for another URL.
      agent: false,
      lookup: pinnedLookup(target) as never,
      signal,
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,text/markdown;q=0.9,*/*;q=0.1',
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    request.on('response', resolve);
    request.on('error', (error) => reject(connectError(error, target)));
    request.end();
  });
}

function connectError(error: Error, target: VettedTarget): Error {
  if (error.name === 'AbortError') return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new DossierError('remote-unreachable', `cannot fetch ${target.url.href.slice(0, 200)}: ${code ?? error.message}`, {
    cause: error,
  });
}

function contentTypeOf(header: string | undefined): [string, string | undefined] {
  if (!header) return ['', undefined];
  const [type, ...params] = header.split(';');
  const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";\s]+)/i)?.[1]).find(Boolean);
  return [type.trim().toLowerCase(), charset];
}

/** The body, decompressed, up to `maxBytes`: reading stops there (a compressed bomb cannot fill memory). */
async function readCapped(response: IncomingMessage, maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  let stream: Readable = response;
  if (encoding === 'gzip' || encoding === 'x-gzip') stream = response.pipe(zlib.createGunzip());
  else if (encoding === 'deflate') stream = response.pipe(zlib.createInflate());
  else if (encoding === 'br') stream = response.pipe(zlib.createBrotliDecompress());
  // Errors of the socket (an abort) reach the decompressor's reader too.
  if (stream !== response) response.on('error', (error) => stream.destroy(error));
  const parts: Buffer[] = [];
  let length = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (length + buffer.length > maxBytes) {
        parts.push(buffer.subarray(0, maxBytes - length));
        length = maxBytes;
        truncated = true;
        break;
      }
      parts.push(buffer);
      length += buffer.length;
    }
  } finally {
    response.destroy();
    if (stream !== response) stream.destroy();
  }
  return { bytes: Buffer.concat(parts, length), truncated };
}

function toMarkdown(
  bytes: Buffer,
  mediaType: string,
  charset: string | undefined,
  finalUrl: string,
): { title: string; markdown: string; contentType: string } {
  const sniffed = mediaType || sniffType(bytes);
  if (HTML_TYPES.has(sniffed)) {
    const html = decodeText(bytes, charset ?? sniffHtmlCharset(bytes));
    return { ...htmlToMarkdown(html, finalUrl), contentType: sniffed };
  }
  const text = decodeText(bytes, charset);
  if (!looksLikeText(text)) throw new DossierError('unsupported-format', `${finalUrl.slice(0, 200)} is binary data, not a text page`);
  return { title: markdownTitle(text) ?? titleFromUrl(finalUrl), markdown: text.trim(), contentType: sniffed };
}

/** A response without Content-Type: HTML if it starts like HTML, else text. */
function sniffType(bytes: Buffer): string {
  const head = bytes.subarray(0, 1024).toString('latin1').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /^<(head|body|title|meta)\b/.test(head)
    ? 'text/html'
    : 'text/plain';
}

function markdownTitle(text: string): string | undefined {
  return text.match(/^#\s+(.+)$/m)?.[1]?.trim() || undefined;
}

function titleFromUrl(url: string): string {
  const { hostname, pathname } = new URL(url);
  return `${hostname}${pathname === '/' ? '' : pathname}`;
}

const NEVER_CONTENT =
  'script, style, noscript, template, iframe, object, embed, svg, canvas, form, button, input, select, textarea, link, meta';
const BOILERPLATE =
  'nav, aside, footer, header, dialog, [role="navigation"], [role="contentinfo"], [role="complementary"], [role="search"], [aria-hidden="true"]';
/** Readability's pick must keep at least this share of the cleaned body's text, or we distrust it. */
const MIN_ARTICLE_SHARE = 0.25;

function collapse(text: string | null | undefined): string {
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** Links made absolute (the Markdown is read away from the page), script links dropped. */
function absolutizeLinks(document: DomDocument, baseUrl: string): void {
  for (const element of Array.from(document.querySelectorAll('a[href], img[src]')) as (DomElement & {
    setAttribute(n: string, v: string): void;
    removeAttribute(n: string): void;
  })[]) {
    const attribute = element.localName === 'img' ? 'src' : 'href';
    const value = element.getAttribute(attribute) ?? '';
    try {
      const absolute = new URL(value, baseUrl);
      if (absolute.protocol === 'http:' || absolute.protocol === 'https:' || absolute.protocol === 'mailto:')
        element.setAttribute(attribute, absolute.href);
      else element.removeAttribute(attribute);
    } catch {
      element.removeAttribute(attribute);
    }
  }
}

function turndown(): TurndownService {
  const service = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '*' });
  service.remove([
    'script',
    'style',
    'noscript',
    'template',
    'iframe',
    'object',
    'embed',
    'form',
    'button',
    'select',
    'textarea',
    'input',
  ] as never);
  // Images add nothing a reader of the text can use but their alt text.
  service.addRule('image-alt', {
    filter: 'img',
    replacement: (_content, node) => collapse((node as unknown as DomElement).getAttribute('alt')),
  });
  return service;
}

/** HTML → {title, markdown} of the main content: Readability when it agrees with the page, else the cleaned body. */
export function htmlToMarkdown(html: string, baseUrl: string): { title: string; markdown: string } {
  const document = parseHtmlDocument(html);
  const title =
    collapse(document.title) ||
    collapse(document.querySelector('meta[property="og:title"]')?.getAttribute('content')) ||
    collapse(document.querySelector('h1')?.textContent) ||
    titleFromUrl(baseUrl);
  for (const element of Array.from(document.querySelectorAll(NEVER_CONTENT))) element.remove();
  absolutizeLinks(document, baseUrl);
  const body = document.querySelector('body') ?? document.documentElement;
  // Readability changes the tree it reads, so it gets its own copy.
  const copy = parseHtmlDocument((document.documentElement as unknown as { outerHTML: string }).outerHTML);
  for (const element of Array.from(document.querySelectorAll(BOILERPLATE))) element.remove();
  const bodyHtml = (body as unknown as { innerHTML: string }).innerHTML;
  const bodyText = collapse(body.textContent);
  let contentHtml = bodyHtml;
  try {
    const article = new Readability(copy as never, { charThreshold: 200 }).parse();
    if (article?.content && collapse(article.textContent).length >= MIN_ARTICLE_SHARE * bodyText.length) contentHtml = article.content;
  } catch {
    // Readability is a heuristic; the cleaned body is a fine answer when it gives up.
  }
  const markdown = turndown()
    .turndown(contentHtml || '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title, markdown };
}
