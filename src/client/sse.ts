/**
 * An incremental Server-Sent Events parser, after the WHATWG HTML "event stream interpretation"
 * rules: UTF-8, one leading BOM dropped, lines ended by CRLF, LF or CR, `:` comments, the fields
 * `event`, `data` (several lines joined with "\n"), `id` and `retry`, an event dispatched on a blank
 * line, an unfinished event at the end of the stream dropped. Feed it chunks cut anywhere (inside
 * a multi-byte character, between CR and LF): the events are the same as for the whole stream.
 * Browser-safe: TextDecoder and ReadableStream only.
 */

export interface SseMessage {
  /** The `event` field, or "message" when the block had none. */
  event: string;
  /** The `data` lines joined with "\n". */
  data: string;
  /** The last event id as of this event (it carries over from earlier events, as in EventSource). */
  id: string;
}

export class SseParser {
  /** The last event id seen (the `Last-Event-ID` a reconnect sends). */
  lastEventId = '';
  /** The reconnection time the server asked for with `retry`, milliseconds. */
  retry: number | undefined;

  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  private line = '';
  private data = '';
  private eventType = '';
  private idBuffer = '';
  private started = false;
  /** The previous chunk ended with CR: an LF first in the next one belongs to it. */
  private afterCR = false;

  /** Parses a chunk (bytes, or text already decoded) and returns the events it completed. */
  feed(chunk: Uint8Array | string): SseMessage[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.text(text);
  }

  /** The stream ended: whatever the decoder held is flushed and an unfinished event is dropped. */
  end(): SseMessage[] {
    const out = this.text(this.decoder.decode());
    this.line = '';
    this.data = '';
    this.eventType = '';
    this.afterCR = false;
    return out;
  }

  private text(input: string): SseMessage[] {
    let text = input;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: SseMessage[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch === 0x0a && this.afterCR) {
        // The LF of a CRLF whose CR ended the last line (possibly in the previous chunk).
        this.afterCR = false;
        start = i + 1;
        continue;
      }
      this.afterCR = false;
      if (ch !== 0x0a && ch !== 0x0d) continue;
      const message = this.processLine(this.line + text.slice(start, i));
      if (message) out.push(message);
      this.line = '';
      this.afterCR = ch === 0x0d;
      start = i + 1;
    }
    this.line += text.slice(start);
    return out;
  }

  private processLine(line: string): SseMessage | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.eventType = value;
        break;
      case 'data':
        this.data += `${value}\n`;
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.retry = Number(value);
        break;
      default:
        // Unknown fields are ignored, as the spec says.
        break;
    }
    return undefined;
  }

  private dispatch(): SseMessage | undefined {
    // The id is taken even when there is no data: an id-only block moves Last-Event-ID on.
    this.lastEventId = this.idBuffer;
    if (this.data === '') {
      this.eventType = '';
      return undefined;
    }
    const message: SseMessage = {
      event: this.eventType || 'message',
      data: this.data.endsWith('\n') ? this.data.slice(0, -1) : this.data,
      id: this.lastEventId,
    };
    this.data = '';
    this.eventType = '';
    return message;
  }
}

/**
 * The events of a fetch Response body (or any byte stream), as they arrive. Pass your own parser
 * to read `lastEventId` and `retry` afterwards. Breaking out of the loop cancels the body.
 */
export async function* readSse(
  source: Response | ReadableStream<Uint8Array>,
  parser: SseParser = new SseParser(),
): AsyncGenerator<SseMessage, void, undefined> {
  const body = source instanceof ReadableStream ? source : source.body;
  if (!body) return;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (const message of parser.feed(value)) yield message;
    }
    finished = true;
    for (const message of parser.end()) yield message;
  } finally {
    // Stopped early (break, throw, a dropped connection): let go of the connection.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
