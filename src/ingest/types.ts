/**
 * What a parser hands to the chunker: the document's text as a sequence of blocks in reading order.
 * Headings carry their level so the chunker can keep a heading path; every block may carry the page
 * it came from (PDF, slides) so a citation can point at the exact place. A code block is code
 * verbatim (line breaks and indentation are meaning), with its language when the source names it
 * (a fence's info string, a `code-block` directive's argument), so the chunker can show it fenced.
 */
export type Block =
  | { type: 'heading'; level: number; text: string; page?: number }
  | { type: 'text'; text: string; page?: number }
  | CodeBlock;

export interface CodeBlock {
  type: 'code';
  /** A highlighter's language name as the source spells it ("python", "pycon", "console"); absent when unknown. */
  language?: string;
  text: string;
  page?: number;
}

export interface ParsedDocument {
  /** Best title the file offers (metadata title, first heading, file name as last resort). */
  title: string;
  /** IANA media type of the source, e.g. "application/pdf". */
  mediaType: string;
  blocks: Block[];
  /** Format-specific facts worth filtering on (author, page count, sheet names, e-mail headers …). */
  metadata: Record<string, unknown>;
  /**
   * Files this one includes (rst `.. include::` / `.. literalinclude::`, MyST `{include}`), as
   * written: paths relative to this file. The pipeline follows them within the ingested tree.
   */
  includes?: string[];
  /**
   * false when the file has no text of its own besides its includes (a page that only pulls in
   * ../CHANGES.rst): then `blocks` holds at most its headings, and the pipeline ingests it through
   * its include targets or skips it with the reason.
   */
  hasOwnText?: boolean;
}

export interface ParseInput {
  /** Path or URL the bytes came from; used for the title fallback and error messages. */
  path: string;
  bytes: Uint8Array;
  /** Recognise text in images and in PDF pages without a text layer (default true). */
  ocr?: boolean;
}

/**
 * One parser per format family. `parse` throws a DossierError (codes: 'parse-failed',
 * 'empty-document', 'encrypted-document') with a one-line message that names the reason;
 * the pipeline adds the file name. 'skipped' means the file was read and holds nothing to index
 * on purpose (an image without text, or OCR turned off): the pipeline counts it as skipped, not failed.
 */
export interface Parser {
  /** Short stable name, e.g. "pdf". */
  readonly name: string;
  /** Lower-case file extensions without the dot that this parser claims, e.g. ["md", "markdown"]. */
  readonly extensions: readonly string[];
  /** Media types this parser claims (used when the extension is missing or unknown). */
  readonly mediaTypes: readonly string[];
  parse(input: ParseInput): Promise<ParsedDocument>;
}
