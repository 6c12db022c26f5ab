import { basename, extname } from 'node:path';
import { unzipSync, type Unzipped } from 'fflate';
import { DossierError, oneLine } from '../../errors/index.ts';
import { retryable } from '../retryable.ts';
import type { Block } from '../types.ts';

export function fileStem(path: string): string {
  const name = basename(path);
  return name.slice(0, name.length - extname(name).length) || name;
}

/** Text of the first heading, the usual title fallback before the file name. */
export function firstHeading(blocks: Block[]): string | undefined {
  for (const block of blocks)
    if (block.type === 'heading' && block.text.trim()) return block.text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return undefined;
}

/**
 * The title a document's headings give (the title rule of Markdown, reStructuredText and HTML): its
 * first H1 (`firstH1`, for formats whose levels are absolute); else its first heading, when that
 * heading opens the document (no text or code before it) and heads all of it (no later heading at
 * its level or above; a page that opens with "## 0.47.3" followed by "## 0.47.2" has no title
 * heading). A heading deep in a page names a section, not the page.
 */
export function titleFromHeadings(blocks: readonly Block[], options: { firstH1: boolean }): string | undefined {
  const clean = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 200);
  if (options.firstH1) {
    const h1 = blocks.find((block) => block.type === 'heading' && block.level === 1 && block.text.trim());
    if (h1) return clean(h1.text);
  }
  const first = blocks[0];
  if (first?.type !== 'heading' || !first.text.trim()) return undefined;
  const sibling = blocks.some((block, i) => i > 0 && block.type === 'heading' && block.level <= first.level);
  return sibling ? undefined : clean(first.text);
}

/**
 * A title made from a file name, for a page whose headings give none: words from the stem with the
 * first one capitalised (`config_file.md` → "Config file"); an index or README page takes its
 * folder's name (`guides/index.md` → "Guides").
 */
export function titleFromFileName(path: string): string {
  const parts = path.split(/[\\/]+/).filter(Boolean);
  let stem = fileStem(parts.at(-1) ?? path);
  if (/^(?:index|readme|_index)$/i.test(stem) && parts.length >= 2) stem = fileStem(parts[parts.length - 2]);
  const words = stem.replace(/[-_\s]+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : stem || path;
}

/** Default or tool-made titles ("PowerPoint Presentation", "Microsoft Word - x.doc") say nothing. */
export function usefulTitle(title: string | undefined): string | undefined {
  const clean = (title ?? '').replace(/\s+/g, ' ').trim();
  if (!clean) return undefined;
  if (
    /^(\(anonymous\)|anonymous|untitled( document)?|title|pdf|document\d*|presentation\d*|powerpoint presentation|slide \d+|book\d*|sheet\d*|microsoft (word|excel|powerpoint) - .*)$/i.test(
      clean,
    )
  )
    return undefined;
  return clean.slice(0, 300);
}

/** Any unexpected library error becomes a one-line 'parse-failed' naming the format. */
export function asParseError(format: string, error: unknown): DossierError {
  if (DossierError.isInstance(error)) return error;
  return new DossierError('parse-failed', `malformed ${format}: ${oneLine(error).slice(0, 200)}`, { cause: error });
}

/** Rejects after `ms` so an async library that never settles cannot stall a batch. */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(retryable(new DossierError('parse-failed', `${what} took longer than ${Math.round(ms / 1000)} s`))),
      ms,
    );
    timer.unref();
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Generous budget that grows with input size: 30 s plus 10 s per MB. */
export function timeoutFor(bytes: Uint8Array): number {
  return 30_000 + Math.ceil(bytes.byteLength / 1_000_000) * 10_000;
}

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const ZIP_MAGIC = [0x50, 0x4b];

function startsWith(bytes: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => bytes[i] === b);
}

export function isZip(bytes: Uint8Array): boolean {
  return startsWith(bytes, ZIP_MAGIC);
}

/**
 * OOXML files (docx/xlsx/pptx) are zips. A password-protected one is instead an OLE compound file
 * holding an "EncryptedPackage" stream; a plain OLE file is a legacy .doc/.xls/.ppt renamed.
 */
export function checkOoxmlContainer(bytes: Uint8Array, format: string): void {
  if (bytes.byteLength === 0) throw new DossierError('empty-document', `empty ${format} file`);
  if (startsWith(bytes, CFB_MAGIC)) {
    const marker = Buffer.from('EncryptedPackage', 'utf16le');
    if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(marker)) {
      throw new DossierError('encrypted-document', `password-protected ${format}`);
    }
    throw new DossierError('unsupported-format', `legacy binary Office file, not ${format} (zip)`);
  }
  if (!isZip(bytes)) throw new DossierError('parse-failed', `malformed ${format}: not a zip archive`);
}

/** Largest single entry we inflate; a zip bomb stops here instead of exhausting memory. */
const MAX_ENTRY_BYTES = 512 * 1024 * 1024;

/** Unzips only the entries `want` accepts; malformed archives become one-line errors. */
export function unzipEntries(bytes: Uint8Array, format: string, want: (name: string) => boolean): Unzipped {
  try {
    return unzipSync(bytes, {
      filter: (file) => {
        if (!want(file.name)) return false;
        if (file.originalSize > MAX_ENTRY_BYTES)
          throw new DossierError('parse-failed', `malformed ${format}: entry ${file.name} is too large`);
        return true;
      },
    });
  } catch (error) {
    if (DossierError.isInstance(error)) throw error;
    throw new DossierError('parse-failed', `malformed ${format}: ${oneLine(error)}`, { cause: error });
  }
}

const utf8 = new TextDecoder('utf-8');

export function entryText(entries: Unzipped, name: string): string | undefined {
  const entry = entries[name];
  return entry ? utf8.decode(entry) : undefined;
}

/** Resolves a zip-internal href relative to the entry that contains it ("OEBPS/x.opf" + "../a.html"). */
export function resolveZipPath(from: string, href: string): string {
  const clean = decodeURIComponent(href.split('#')[0]);
  if (clean.startsWith('/')) return clean.slice(1);
  const parts = from.split('/').slice(0, -1);
  for (const part of clean.split('/')) {
    if (part === '..') parts.pop();
    else if (part !== '.' && part !== '') parts.push(part);
  }
  return parts.join('/');
}

/** Splits plain text into paragraph blocks at blank lines. */
export function paragraphsOf(text: string, page?: number): Block[] {
  return text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph.length > 0)
    .map((paragraph): Block => (page === undefined ? { type: 'text', text: paragraph } : { type: 'text', text: paragraph, page }));
}

export function requireBlocks(blocks: Block[], what: string): Block[] {
  if (blocks.length === 0) throw new DossierError('empty-document', `no text in ${what}`);
  return blocks;
}
