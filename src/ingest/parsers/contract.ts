/**
 * The one contract every parser passes (like Hono's shared router cases): given a parser and a
 * sample it can read, check the ParsedDocument shape, then feed it empty and garbage input and
 * require a one-line DossierError — never a hang, never a foreign exception.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DossierError } from '../../errors/index.ts';
import type { CodeBlock, ParsedDocument, Parser } from '../types.ts';

export interface ContractSample {
  path: string;
  bytes: Uint8Array;
  /** A phrase the extracted text must contain. */
  contains?: string;
}

/** Deterministic pseudo-random bytes: garbage that is the same on every run. */
export function garbageBytes(length: number, seed = 42): Uint8Array {
  const bytes = new Uint8Array(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    bytes[i] = x >>> 16;
  }
  return bytes;
}

const HANG_LIMIT_MS = 20_000;

async function settle(parser: Parser, path: string, bytes: Uint8Array): Promise<ParsedDocument | unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${parser.name} did not settle within ${HANG_LIMIT_MS} ms`)), HANG_LIMIT_MS);
  });
  try {
    return await Promise.race([parser.parse({ path, bytes }), hang]);
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
}

export function assertDossierError(error: unknown, codes: string[]): void {
  assert.ok(
    DossierError.isInstance(error),
    `expected a DossierError, got ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
  );
  assert.ok(codes.includes(error.code), `unexpected code ${error.code} (${error.message})`);
  assert.ok(error.message.length > 0 && !error.message.includes('\n'), `message must be one line: ${JSON.stringify(error.message)}`);
  assert.ok(error.message.length <= 300, 'message must be short');
}

export function assertParsedDocument(doc: ParsedDocument, parser: Parser): void {
  assert.ok(doc.title.trim().length > 0, 'title must not be empty');
  assert.ok(!doc.title.includes('\n'), 'title must be one line');
  assert.match(doc.mediaType, /^[a-z]+\/[\w.+-]+$/, 'mediaType must be a media type');
  assert.ok(parser.mediaTypes.includes(doc.mediaType) || doc.mediaType.length > 0);
  assert.ok(doc.blocks.length > 0, 'must return blocks');
  for (const block of doc.blocks) {
    assert.ok(
      block.type === 'heading' || block.type === 'text' || block.type === 'code',
      `unknown block type ${String((block as { type: unknown }).type)}`,
    );
    assert.ok(block.text.trim().length > 0, 'every block has text');
    if (block.type === 'heading') assert.ok(Number.isInteger(block.level) && block.level >= 1 && block.level <= 6, 'heading level 1–6');
    if (block.type === 'code') assertCodeBlock(block);
    if (block.page !== undefined) assert.ok(Number.isInteger(block.page) && block.page >= 1, 'page numbers start at 1');
  }
  assert.equal(typeof doc.metadata, 'object');
  assert.doesNotThrow(() => JSON.stringify(doc.metadata), 'metadata must be JSON-serialisable');
}

/**
 * A well-formed code block: code verbatim with no blank lines at its edges (the chunker fences it
 * as it is), no carriage returns, and a language that is one highlighter name, lower case, or none.
 */
export function assertCodeBlock(block: CodeBlock): void {
  assert.ok(!/\r/.test(block.text), 'code uses \\n line breaks');
  assert.ok(!/^[ \t]*\n/.test(block.text) && block.text === block.text.trimEnd(), 'code has no blank lines or trailing space at its edges');
  if (block.language !== undefined)
    assert.match(block.language, /^[a-z0-9][a-z0-9+#._-]*$/, `language ${JSON.stringify(block.language)} is one lower-case name`);
}

/** Registers the contract tests for one parser. */
export function parserContract(parser: Parser, sample: () => ContractSample | undefined): void {
  const ext = parser.extensions[0];
  test(`${parser.name} parser: declares extensions and media types`, () => {
    assert.ok(parser.name.length > 0);
    assert.ok(parser.extensions.length > 0 && parser.extensions.every((e) => e === e.toLowerCase() && !e.startsWith('.')));
    assert.ok(parser.mediaTypes.length > 0);
  });

  test(`${parser.name} parser: parses a sample into titled, non-empty blocks`, async (t) => {
    const input = sample();
    if (!input) {
      t.skip('sample data not available (docs-mixed/ of DOSSIER_DATA_DIR is missing)');
      return;
    }
    const result = await settle(parser, input.path, input.bytes);
    if (result instanceof Error) throw result;
    const doc = result as ParsedDocument;
    assertParsedDocument(doc, parser);
    if (input.contains) {
      const text = doc.blocks.map((b) => b.text).join('\n');
      assert.ok(text.includes(input.contains), `expected extracted text to contain ${JSON.stringify(input.contains)}`);
    }
  });

  test(`${parser.name} parser: empty input gives a one-line DossierError`, async () => {
    const result = await settle(parser, `empty.${ext}`, new Uint8Array(0));
    assertDossierError(result, ['empty-document', 'parse-failed']);
  });

  test(`${parser.name} parser: whitespace-only input gives a one-line DossierError`, async () => {
    const result = await settle(parser, `blank.${ext}`, new TextEncoder().encode('  \n\n \t \n'));
    assertDossierError(result, ['empty-document', 'parse-failed']);
  });

  test(`${parser.name} parser: garbage bytes give a one-line DossierError`, async () => {
    // Tiny random strings can be valid text in some code page; a few hundred bytes cannot.
    for (const size of [512, 4096, 100_000]) {
      const result = await settle(parser, `garbage.${ext}`, garbageBytes(size, size));
      assertDossierError(result, ['parse-failed', 'empty-document', 'unsupported-format']);
    }
  });

  test(`${parser.name} parser: truncated sample gives a document or a one-line DossierError`, async (t) => {
    const input = sample();
    if (!input) {
      t.skip('sample data not available');
      return;
    }
    const cut = input.bytes.subarray(0, Math.floor(input.bytes.length / 2));
    const result = await settle(parser, input.path, cut);
    // 'skipped': half an image may hold no readable text any more.
    if (DossierError.isInstance(result) || result instanceof Error)
      assertDossierError(result, ['parse-failed', 'empty-document', 'encrypted-document', 'skipped']);
    else assertParsedDocument(result as ParsedDocument, parser);
  });
}
