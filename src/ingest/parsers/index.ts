/**
 * The parser registry: one Parser per format family, looked up by extension, then media type, then
 * (for files with no known extension) by sniffing the first bytes.
 */
import { extname } from 'node:path';
import { DossierError } from '../../errors/index.ts';
import { looksLikeText } from '../encoding.ts';
import { imageFormat } from '../ocr/formats.ts';
import type { ParsedDocument, ParseInput, Parser } from '../types.ts';
import { csvParser } from './csv.ts';
import { docxParser } from './docx.ts';
import { emlParser } from './eml.ts';
import { epubParser } from './epub.ts';
import { htmlParser } from './html.ts';
import { imageParser } from './image.ts';
import { ipynbParser } from './ipynb.ts';
import { jsonParser } from './json.ts';
import { markdownParser } from './markdown.ts';
import { odtParser } from './odt.ts';
import { pdfParser } from './pdf.ts';
import { pptxParser } from './pptx.ts';
import { rstParser } from './rst.ts';
import { txtParser } from './txt.ts';
import { xlsxParser } from './xlsx.ts';
import { xmlParser } from './xml.ts';

export const parsers: Parser[] = [
  txtParser,
  markdownParser,
  htmlParser,
  pdfParser,
  docxParser,
  csvParser,
  jsonParser,
  pptxParser,
  xlsxParser,
  emlParser,
  epubParser,
  ipynbParser,
  odtParser,
  xmlParser,
  rstParser,
  imageParser,
];

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

const byExtension = new Map<string, Parser>();
const byMediaType = new Map<string, Parser>();
for (const parser of parsers) {
  for (const ext of parser.extensions) if (!byExtension.has(ext)) byExtension.set(ext, parser);
  for (const type of parser.mediaTypes) if (!byMediaType.has(type)) byMediaType.set(type, parser);
}

function extensionOf(path: string): string {
  return extname(path).slice(1).toLowerCase();
}

/** The parser for a path (by extension) or a media type (parameters like "; charset=" ignored). */
export function parserFor(path: string, mediaType?: string): Parser | undefined {
  const parser = byExtension.get(extensionOf(path));
  if (parser) return parser;
  if (mediaType) return byMediaType.get(mediaType.split(';')[0].trim().toLowerCase());
  return undefined;
}

/** Every extension some parser claims, sorted: the ingest command's folder filter. */
export function supportedExtensions(): string[] {
  return [...byExtension.keys()].sort();
}

function startsWith(bytes: Uint8Array, text: string, offset = 0): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[offset + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** Magic numbers of formats we refuse, checked before guessing a text format. */
function sniffUnsupported(bytes: Uint8Array): string | undefined {
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

/** For files whose extension says nothing: look at the bytes. */
export function sniffParser(bytes: Uint8Array): Parser | undefined {
  if (startsWith(bytes, '%PDF-')) return pdfParser;
  if (imageFormat(bytes)) return imageParser;
  if (sniffUnsupported(bytes)) return undefined;
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 2048))
    .toString('utf8')
    .replace(/^\ufeff/, '')
    .trimStart();
  if (/^<(!doctype html|html|head|body)[\s>]/i.test(head)) return htmlParser;
  if (/^<\?xml|^<[a-z][\w:-]*[\s>]/i.test(head)) return /<html[\s>]/i.test(head) ? htmlParser : xmlParser;
  if (/^[[{]/.test(head)) return jsonParser;
  if (
    /^(from|received|return-path|message-id|mime-version|delivered-to):/im.test(head.split(/\r?\n\r?\n/)[0] ?? '') &&
    /^(from|subject):/im.test(head)
  )
    return emlParser;
  if (looksLikeText(head)) return txtParser;
  return undefined;
}

/**
 * Picks the parser and parses, or throws 'unsupported-format' with the reason. The pipeline adds
 * the file name to the one-line message.
 */
export async function parseDocument(input: ParseInput, mediaType?: string): Promise<ParsedDocument> {
  const ext = extensionOf(input.path);
  let parser = parserFor(input.path, mediaType);
  if (!parser) {
    const reason = UNSUPPORTED[ext] ?? sniffUnsupported(input.bytes);
    if (reason) throw new DossierError('unsupported-format', `unsupported format: ${reason}`);
    if (input.bytes.byteLength === 0) throw new DossierError('empty-document', 'empty file');
    parser = sniffParser(input.bytes);
  }
  if (!parser)
    throw new DossierError('unsupported-format', `unsupported format${ext ? ` .${ext}` : ''}: not text and no parser recognises the bytes`);
  return parser.parse(input);
}

export {
  csvParser,
  docxParser,
  emlParser,
  epubParser,
  htmlParser,
  imageParser,
  ipynbParser,
  jsonParser,
  markdownParser,
  odtParser,
  pdfParser,
  pptxParser,
  rstParser,
  txtParser,
  xlsxParser,
  xmlParser,
};
