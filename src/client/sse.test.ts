import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readSse, SseParser, type SseMessage } from './sse.ts';

/**
 * A stream with everything the parser must get right: a BOM, multi-byte characters of 2, 3 and 4
 * bytes, CRLF, lone CR and LF line ends, comments, multi-line data, an id-only block, retry (valid
 * and not), a field without a colon, an unknown field, a NUL in an id, and an unfinished last event.
 */
const STREAM =
  '\uFEFF: a comment first\r\n' +
  'retry: 2500\r\n' +
  'event: run-start\r\nid: 1\r\ndata: {"q":"Où est Tromsø? 日本 😀"}\r\n\r\n' +
  'data: line one\ndata:line two\ndata\ndata:  two spaces\n\n' +
  ':keep-alive\r' +
  'id: 7\r\r' +
  'event: text-delta\rdata: é\rretry: soon\r\r' +
  'id: bad\0id\nunknown: x\ndata: after a NUL id\n\n' +
  'event: ignored\ndata: unfinished event at the end';

const EXPECTED: SseMessage[] = [
  { event: 'run-start', id: '1', data: '{"q":"Où est Tromsø? 日本 😀"}' },
  { event: 'message', id: '1', data: 'line one\nline two\n\n two spaces' },
  { event: 'text-delta', id: '7', data: 'é' },
  { event: 'message', id: '7', data: 'after a NUL id' },
];

function parseChunks(chunks: Array<Uint8Array | string>): { messages: SseMessage[]; parser: SseParser } {
  const parser = new SseParser();
  const messages = chunks.flatMap((chunk) => parser.feed(chunk));
  messages.push(...parser.end());
  return { messages, parser };
}

const bytes = new TextEncoder().encode(STREAM);

describe('SseParser', () => {
  it('parses the whole stream per the EventSource rules', () => {
    const { messages, parser } = parseChunks([bytes]);
    assert.deepEqual(messages, EXPECTED);
    assert.equal(parser.retry, 2500, 'retry: soon is not digits and is ignored');
    assert.equal(parser.lastEventId, '7', 'an id with NUL is ignored');
  });

  it('gives the same events for a split at every byte (inside multi-byte characters and CRLF too)', () => {
    // Sanity: the stream does have characters of several bytes, so some splits fall inside them.
    assert.ok(bytes.length > STREAM.length + 10);
    for (let at = 0; at <= bytes.length; at++) {
      assert.deepEqual(parseChunks([bytes.subarray(0, at), bytes.subarray(at)]).messages, EXPECTED, `split at byte ${at}`);
    }
    for (let a = 0; a <= bytes.length; a += 3) {
      for (let b = a; b <= bytes.length; b += 5) {
        assert.deepEqual(
          parseChunks([bytes.subarray(0, a), bytes.subarray(a, b), bytes.subarray(b)]).messages,
          EXPECTED,
          `split at bytes ${a} and ${b}`,
        );
      }
    }
  });

  it('gives the same events fed one byte at a time, and one character at a time as text', () => {
    assert.deepEqual(parseChunks([...bytes].map((byte) => Uint8Array.of(byte))).messages, EXPECTED);
    assert.deepEqual(parseChunks([...STREAM]).messages, EXPECTED);
  });

  it('treats CR then LF in the next chunk as one line end, not two', () => {
    // Read as two line ends, the LF would be a blank line and dispatch "a" alone.
    const { messages } = parseChunks(['data: a\r', '\ndata: b\r\n\r\n']);
    assert.deepEqual(messages, [{ event: 'message', id: '', data: 'a\nb' }]);
    // …even with empty chunks between the CR and the LF.
    assert.deepEqual(parseChunks(['data: a\r', '', new Uint8Array(0), '\ndata: b\r', '\n\r', '\n']).messages, [
      { event: 'message', id: '', data: 'a\nb' },
    ]);
    // A lone CR followed by another CR is a blank line.
    assert.deepEqual(parseChunks(['data: a\r', '\rdata: b\n\n']).messages, [
      { event: 'message', id: '', data: 'a' },
      { event: 'message', id: '', data: 'b' },
    ]);
  });

  it('drops only a BOM at the very start', () => {
    assert.deepEqual(parseChunks([Uint8Array.of(0xef), Uint8Array.of(0xbb, 0xbf), 'data: x\n\n']).messages, [
      { event: 'message', id: '', data: 'x' },
    ]);
    // A later BOM is part of the field name ("\uFEFFdata" is not "data"), so that block has no data.
    assert.deepEqual(parseChunks(['data: x\n\n\uFEFFdata: y\n\n']).messages, [{ event: 'message', id: '', data: 'x' }]);
  });

  it('reads a Response body with readSse, chunk by chunk', async () => {
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5, 60), bytes.subarray(60, 61), bytes.subarray(61)];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const parser = new SseParser();
    const seen: SseMessage[] = [];
    for await (const message of readSse(new Response(body), parser)) seen.push(message);
    assert.deepEqual(seen, EXPECTED);
    assert.equal(parser.retry, 2500);
  });

  it('cancels the body when the reader stops early', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode('data: tick\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    let count = 0;
    for await (const _message of readSse(body)) if (++count === 3) break;
    assert.equal(cancelled, true);
  });
});
