/**
 * Every parser, loaded eagerly, for callers that want the Parser objects themselves (the contract
 * suites, tests, the library). Ingestion goes through registry.ts, which loads each parser on first use.
 */
import type { Parser } from '../types.ts';
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
import { formatFor, sniffFormat, type FormatName } from './registry.ts';
import { rstParser } from './rst.ts';
import { txtParser } from './txt.ts';
import { xlsxParser } from './xlsx.ts';
import { xmlParser } from './xml.ts';

export { FORMATS, parseDocument, supportedExtensions } from './registry.ts';

/** In the registry's order (FORMATS): the first parser that claims an extension wins. */
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

const byName = new Map(parsers.map((parser) => [parser.name as FormatName, parser]));

/** The parser for a path (by extension) or a media type (parameters like "; charset=" ignored). */
export function parserFor(path: string, mediaType?: string): Parser | undefined {
  const format = formatFor(path, mediaType);
  return format && byName.get(format);
}

/** For files whose extension says nothing: the parser the bytes point to. */
export function sniffParser(bytes: Uint8Array): Parser | undefined {
  const format = sniffFormat(bytes);
  return format && byName.get(format);
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
