/**
 * The parser registry, lazily: which format a file is in (by extension, then media type, then, for
 * files with no known extension, by sniffing the first bytes), and the parser module for it, loaded
 * on first use. A tree of plain text never loads the PDF, Office, e-mail or HTML readers, so a small
 * ingest does not pay for them. index.ts holds the same parsers loaded eagerly (tests, library).
 */
import { extname } from 'node:path';
import { DossierError } from '../../errors/index.ts';
import { decodeText, looksLikeText } from '../encoding.ts';
import { IMAGE_MEDIA_TYPES, imageFormat } from '../ocr/formats.ts';
import type { ParsedDocument, ParseInput, Parser } from '../types.ts';
import { TEXT_EXTENSIONS } from './text-extensions.ts';

/**
 * Every format with the extensions and media types its parser claims, in the order that decides a
 * claim two parsers share (the first wins). parsers.test.ts checks each parser claims exactly these.
 */
export const FORMATS = {
  txt: {
    extensions: TEXT_EXTENSIONS,
    mediaTypes: ['text/plain'],
    load: async () => (await import('./txt.ts')).txtParser,
  },
  markdown: {
    extensions: ['md', 'markdown', 'mdown', 'mkd', 'mdx'],
    mediaTypes: ['text/markdown', 'text/x-markdown'],
    load: async () => (await import('./markdown.ts')).markdownParser,
  },
  html: {
    extensions: ['html', 'htm', 'xhtml', 'shtml'],
    mediaTypes: ['text/html', 'application/xhtml+xml'],
    load: async () => (await import('./html.ts')).htmlParser,
  },
  pdf: { extensions: ['pdf'], mediaTypes: ['application/pdf'], load: async () => (await import('./pdf.ts')).pdfParser },
  docx: {
    extensions: ['docx', 'docm', 'dotx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    load: async () => (await import('./docx.ts')).docxParser,
  },
  csv: {
    extensions: ['csv', 'tsv', 'tab'],
    mediaTypes: ['text/csv', 'text/tab-separated-values'],
    load: async () => (await import('./csv.ts')).csvParser,
  },
  json: {
    extensions: ['json', 'jsonl', 'ndjson', 'geojson'],
    mediaTypes: ['application/json', 'application/x-ndjson', 'application/jsonl', 'application/geo+json'],
    load: async () => (await import('./json.ts')).jsonParser,
  },
  pptx: {
    extensions: ['pptx', 'pptm', 'ppsx', 'potx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    load: async () => (await import('./pptx.ts')).pptxParser,
  },
  xlsx: {
    extensions: ['xlsx', 'xlsm', 'xltx'],
    mediaTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    load: async () => (await import('./xlsx.ts')).xlsxParser,
  },
  eml: {
    extensions: ['eml', 'mht', 'mhtml', 'p7s'],
    mediaTypes: ['message/rfc822'],
    load: async () => (await import('./eml.ts')).emlParser,
  },
  epub: { extensions: ['epub'], mediaTypes: ['application/epub+zip'], load: async () => (await import('./epub.ts')).epubParser },
  ipynb: { extensions: ['ipynb'], mediaTypes: ['application/x-ipynb+json'], load: async () => (await import('./ipynb.ts')).ipynbParser },
  odt: {
    extensions: ['odt', 'ott'],
    mediaTypes: ['application/vnd.oasis.opendocument.text'],
    load: async () => (await import('./odt.ts')).odtParser,
  },
  xml: {
    extensions: ['xml', 'rss', 'atom', 'opml', 'svg'],
    mediaTypes: ['application/xml', 'text/xml', 'application/rss+xml', 'application/atom+xml'],
    load: async () => (await import('./xml.ts')).xmlParser,
  },
  rst: {
    extensions: ['rst', 'rest'],
    mediaTypes: ['text/x-rst', 'text/prs.fallenstein.rst'],
    load: async () => (await import('./rst.ts')).rstParser,
  },
  image: {
    extensions: ['png', 'jpg', 'jpeg', 'jpe', 'tif', 'tiff', 'webp', 'bmp', 'gif'],
    mediaTypes: Object.values(IMAGE_MEDIA_TYPES),
    load: async () => (await import('./image.ts')).imageParser,
  },
} satisfies Record<string, { extensions: readonly string[]; mediaTypes: readonly string[]; load: () => Promise<Parser> }>;

export type FormatName = keyof typeof FORMATS;

/** Formats we recognise but cannot read, with the reason a person sees. */
const UNSUPPORTED: Record<string, string> = {};
for (const ext of ['heic', 'heif', 'avif', 'ico', 'psd']) UNSUPPORTED[ext] = 'image format OCR cannot read (convert it to PNG or JPEG)';
for (const ext of ['mp3', 'wav', 'm4a', 'flac', 'ogg', 'aac', 'wma', 'opus']) UNSUPPORTED[ext] = 'audio (no transcription)';
for (const ext of ['mp4', 'mov', 'avi', 'mkv', 'webm']) UNSUPPORTED[ext] = 'video';
for (const ext of ['zip', 'gz', 'tgz', 'tar', '7z', 'rar', 'bz2', 'xz']) UNSUPPORTED[ext] = 'archive (extract it first)';
for (const ext of ['doc', 'xls', 'ppt', 'msg', 'dot', 'pps'])
  UNSUPPORTED[ext] = 'legacy binary Office format (save as the x-format, e.g. .docx)';
for (const ext of ['rtf']) UNSUPPORTED[ext] = 'RTF (save as .docx or .txt)';
for (const ext of ['exe', 'dll', 'so', 'bin', 'dylib', 'class', 'o', 'wasm']) UNSUPPORTED[ext] = 'binary file';

const byExtension = new Map<string, FormatName>();
const byMediaType = new Map<string, FormatName>();
for (const [name, format] of Object.entries(FORMATS) as [FormatName, (typeof FORMATS)[FormatName]][]) {
  for (const ext of format.extensions) if (!byExtension.has(ext)) byExtension.set(ext, name);
  for (const type of format.mediaTypes) if (!byMediaType.has(type)) byMediaType.set(type, name);
}

export function extensionOf(path: string): string {
  return extname(path).slice(1).toLowerCase();
}

/** The format of a path (by extension) or a media type (parameters like "; charset=" ignored). */
export function formatFor(path: string, mediaType?: string): FormatName | undefined {
  const format = byExtension.get(extensionOf(path));
  if (format) return format;
  if (mediaType) return byMediaType.get(mediaType.split(';')[0].trim().toLowerCase());
  return undefined;
}

/** Every extension some parser claims, sorted: the ingest command's folder filter. */
export function supportedExtensions(): string[] {
  return [...byExtension.keys()].sort();
}

const loaded = new Map<FormatName, Promise<Parser>>();

/** The parser of a format, its module loaded on first use. */
export function loadParser(format: FormatName): Promise<Parser> {
  let parser = loaded.get(format);
  if (!parser) {
    parser = FORMATS[format].load();
    loaded.set(format, parser);
  }
  return parser;
}

function startsWith(bytes: Uint8Array, text: string, offset = 0): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[offset + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Magic numbers of formats we refuse, checked before guessing a text format. */
export function sniffUnsupported(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, 'ftypheic', 4) || startsWith(bytes, 'ftypmif1', 4) || startsWith(bytes, 'ftypavif', 4))
    return 'image format OCR cannot read (convert it to PNG or JPEG)';
  if (
    startsWith(bytes, 'RIFF') ||
    startsWith(bytes, 'ID3') ||
    startsWith(bytes, 'fLaC') ||
    startsWith(bytes, 'OggS') ||
    startsWith(bytes, 'ftypM4A', 4)
  )
    return 'audio or video';
  if (startsWith(bytes, 'PK\x03\x04')) return 'zip archive';
  if (bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0) return 'legacy binary Office format';
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return 'gzip archive';
  if (startsWith(bytes, '{\\rtf')) return 'RTF (save as .docx or .txt)';
  return undefined;
}

function parsesAsJson(bytes: Uint8Array): boolean {
  try {
    JSON.parse(decodeText(bytes));
    return true;
  } catch {
    return false;
  }
}

/**
 * For files whose extension says nothing (pylintrc, Makefile, LICENSE): look at the bytes. Binary
 * formats by magic number, then markup and JSON by how the text starts (JSON only if it parses),
 * e-mail by its headers, and any other text (INI, config, scripts) as plain text.
 */
export function sniffFormat(bytes: Uint8Array): FormatName | undefined {
  if (startsWith(bytes, '%PDF-')) return 'pdf';
  if (imageFormat(bytes)) return 'image';
  if (sniffUnsupported(bytes)) return undefined;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 2048))
    .toString('utf8')
    .replace(/^\ufeff/, '')
    .trimStart();
  if (/^<(!doctype html|html|head|body)[\s>]/i.test(head)) return 'html';
  if (/^<\?xml|^<[a-z][\w:-]*[\s>]/i.test(head)) return /<html[\s>]/i.test(head) ? 'html' : 'xml';
  // `[section]` opens an INI file as readily as a JSON array: JSON only when the whole file parses.
  if (/^[[{]/.test(head) && parsesAsJson(bytes)) return 'json';
  if (
    /^(from|received|return-path|message-id|mime-version|delivered-to):/im.test(head.split(/\r?\n\r?\n/)[0] ?? '') &&
    /^(from|subject):/im.test(head)
  )
    return 'eml';
  if (looksLikeText(head)) return 'txt';
  return undefined;
}

/**
 * Picks the parser and parses, or throws 'unsupported-format' with the reason. The pipeline adds
 * the file name to the one-line message.
 */
export async function parseDocument(input: ParseInput, mediaType?: string): Promise<ParsedDocument> {
  const ext = extensionOf(input.path);
  let format = formatFor(input.path, mediaType);
  if (!format) {
    const reason = UNSUPPORTED[ext] ?? sniffUnsupported(input.bytes);
    if (reason) throw new DossierError('unsupported-format', `unsupported format: ${reason}`);
    if (input.bytes.byteLength === 0) throw new DossierError('empty-document', 'empty file');
    format = sniffFormat(input.bytes);
  }
  if (!format)
    throw new DossierError('unsupported-format', `unsupported format${ext ? ` .${ext}` : ''}: not text and no parser recognises the bytes`);
  return (await loadParser(format)).parse(input);
}
