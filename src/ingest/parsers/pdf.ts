import { Worker } from 'node:worker_threads';
import { DossierError, oneLine } from '../../errors/index.ts';
import { retryable } from '../retryable.ts';
import { ocrLimits, OCR_RENDER_DPI, ocrTimeoutError, recognise, type OcrResult } from '../ocr/index.ts';
import type { Block, Parser } from '../types.ts';
import { ocrBlocks } from './image.ts';
import { fileStem, paragraphsOf, timeoutFor, usefulTitle } from './util.ts';

interface PdfResult {
  numPages: number;
  pages: { page: number; text: string }[];
  /** Pages with (almost) no text layer that paint an image: scanned, so OCR may read them. */
  scanned: number[];
  info: { title?: string; author?: string; subject?: string; creationDate?: string };
}
type Reply =
  | { id: number; page?: undefined; ok: true; result: PdfResult }
  | { id: number; page: number; ok: true; png: Uint8Array }
  | { id: number; page?: number; ok: false; error: { name: string; message: string } };

/** Longest a scanned page may take to render before the PDF reader is killed. */
const RENDER_TIMEOUT_MS = 30_000;
/** Longest side of a rendered page in pixels, whatever its size in points (a poster stays a few MB). */
const MAX_RENDER_SIDE = 5000;

/** An open PDF whose scanned pages can be rendered; close() lets the reader take the next PDF. */
interface PdfSession {
  result: PdfResult;
  render(page: number): Promise<Uint8Array>;
  close(): void;
}

/**
 * One long-lived worker runs pdf.js (loading it costs ~100 ms), one PDF at a time. A job past its
 * deadline terminates the worker — the only way to stop a synchronous loop — and the next job
 * starts a fresh one. The worker is unref'd while idle so it never keeps the process alive.
 * With OCR on, a PDF with scanned pages stays open (a session) while its pages are rendered one by
 * one, each under its own deadline, and OCR'd in this thread.
 */
class PdfWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  open(bytes: Uint8Array, timeoutMs: number, keepOpen: boolean): Promise<PdfSession> {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const session = this.queue.then(() => this.openNow(bytes, timeoutMs, keepOpen, release));
    // The next PDF waits until this one's session is closed (or failed to open).
    this.queue = session.then(
      () => released,
      () => undefined,
    );
    return session;
  }

  private spawn(): Worker {
    const worker = new Worker(new URL('./pdf-worker.mjs', import.meta.url));
    worker.unref();
    worker.on('error', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    return worker;
  }

  /** Posts one message and waits for the reply it names, or kills the worker at the deadline. */
  private ask<T extends Reply>(
    worker: Worker,
    message: object,
    transfer: ArrayBuffer[],
    match: (reply: Reply) => reply is T,
    timeoutMs: number,
    slow: string,
  ): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.unref();
      };
      const onMessage = (reply: Reply) => {
        if (!match(reply)) return;
        finish();
        resolve(reply);
      };
      const onError = (error: Error) => {
        finish();
        reject(retryable(new DossierError('parse-failed', `PDF reader crashed: ${oneLine(error)}`, { cause: error })));
      };
      const onExit = (code: number) => {
        finish();
        reject(retryable(new DossierError('parse-failed', `PDF reader exited with code ${code}`)));
      };
      const timer = setTimeout(() => {
        finish();
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        reject(retryable(new DossierError('parse-failed', `${slow} took longer than ${Math.round(timeoutMs / 1000)} s`)));
      }, timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.ref(); // keep the process alive while a job is pending
      worker.postMessage(message, transfer);
    });
  }

  private async openNow(bytes: Uint8Array, timeoutMs: number, keepOpen: boolean, release: () => void): Promise<PdfSession> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    // Copy so the caller's buffer is never detached by the transfer.
    const copy = new Uint8Array(bytes);
    let reply: Reply;
    try {
      reply = await this.ask(
        worker,
        { id, bytes: copy, keepOpen },
        [copy.buffer],
        (r): r is Reply => r.id === id && r.page === undefined,
        timeoutMs,
        'PDF text extraction',
      );
    } catch (error) {
      release();
      throw error;
    }
    if (!reply.ok) {
      release();
      throw errorFromWorker(reply.error);
    }
    const result = (reply as { result: PdfResult }).result;
    const held = keepOpen && result.scanned.length > 0;
    if (!held) release();
    let closed = !held;
    return {
      result,
      render: async (page) => {
        if (closed) throw new DossierError('parse-failed', 'the PDF is closed');
        const rendered = await this.ask(
          worker,
          { id, render: page, dpi: OCR_RENDER_DPI, maxSide: MAX_RENDER_SIDE },
          [],
          (r): r is Reply => r.id === id && r.page === page,
          RENDER_TIMEOUT_MS,
          `rendering page ${page}`,
        );
        if (!rendered.ok) throw new DossierError('parse-failed', `page ${page} could not be rendered: ${oneLine(rendered.error.message)}`);
        return (rendered as { png: Uint8Array }).png;
      },
      close: () => {
        if (closed) return;
        closed = true;
        if (this.worker === worker) worker.postMessage({ id, close: true });
        release();
      },
    };
  }
}

function errorFromWorker(error: { name: string; message: string }): DossierError {
  if (error.name === 'PasswordException') return new DossierError('encrypted-document', 'password-protected PDF');
  if (error.name === 'InvalidPDFException') return new DossierError('parse-failed', `malformed PDF: ${oneLine(error.message)}`);
  return new DossierError('parse-failed', `malformed PDF: ${oneLine(`${error.name}: ${error.message}`)}`);
}

const pdfWorker = new PdfWorker();

interface PageOcr {
  /** OCR results by page number. */
  pages: Map<number, OcrResult>;
  /** Why OCR stopped before the last scanned page, when it did. */
  stopped?: string;
  /** The first error when not one page could be read. */
  error?: DossierError;
}

/**
 * OCR of the scanned pages, in order, up to OCR_MAX_PAGES and OCR_TIMEOUT_MS for the whole file
 * (`ocrLimits`).
 * The next page renders (in the PDF worker) while this one is recognised (in the OCR worker).
 */
async function ocrPages(session: PdfSession): Promise<PageOcr> {
  const { scanned } = session.result;
  const { maxPages, timeoutMs } = ocrLimits;
  const wanted = scanned.slice(0, maxPages);
  const deadline = performance.now() + timeoutMs;
  const pages = new Map<number, OcrResult>();
  const out: PageOcr = { pages };
  let next: Promise<Uint8Array> | undefined = session.render(wanted[0]);
  for (let i = 0; i < wanted.length && next; i++) {
    const current = next;
    current.catch(() => undefined);
    next = undefined;
    try {
      const png = await current;
      if (i + 1 < wanted.length) {
        next = session.render(wanted[i + 1]);
        next.catch(() => undefined);
      }
      const left = deadline - performance.now();
      if (left <= 0) throw ocrTimeoutError(timeoutMs);
      pages.set(wanted[i], await recognise(png, { timeoutMs: left, enlarge: false }));
    } catch (caught) {
      if (DossierError.isInstance(caught) && caught.code === 'aborted') throw caught;
      // A page's own deadline is what was left of the file's: name the file's limit.
      const error = DossierError.isInstance(caught) && /^OCR took longer than/.test(caught.message) ? ocrTimeoutError(timeoutMs) : caught;
      out.error ??= DossierError.isInstance(error) ? error : new DossierError('parse-failed', `OCR failed: ${oneLine(error)}`);
      out.stopped = `page ${wanted[i]}: ${oneLine(out.error.message)}`;
      break;
    }
  }
  if (!out.stopped && scanned.length > wanted.length) out.stopped = `the ${maxPages}-page limit`;
  return out;
}

export const pdfParser: Parser = {
  name: 'pdf',
  extensions: ['pdf'],
  mediaTypes: ['application/pdf'],
  async parse({ path, bytes, ocr = true }) {
    if (bytes.byteLength === 0) throw new DossierError('empty-document', 'empty PDF file');
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
    if (!head.includes('%PDF-')) throw new DossierError('parse-failed', 'malformed PDF: no %PDF header');
    const session = await pdfWorker.open(bytes, timeoutFor(bytes), ocr);
    let recognised: PageOcr | undefined;
    try {
      if (ocr && session.result.scanned.length > 0) recognised = await ocrPages(session);
    } finally {
      session.close();
    }
    const { result } = session;
    const blocks: Block[] = [];
    for (const { page, text } of result.pages) {
      const read = recognised?.pages.get(page);
      const fromOcr = read ? ocrBlocks(read, page) : [];
      blocks.push(...(fromOcr.length ? fromOcr : paragraphsOf(text, page)));
    }
    const scanned = result.scanned.length;
    if (blocks.length === 0) {
      if (scanned === 0) throw new DossierError('empty-document', `no extractable text in ${result.numPages}-page PDF`);
      if (!ocr) throw new DossierError('skipped', `scanned PDF (${scanned} of ${result.numPages} pages are images), and OCR is off`);
      if (recognised?.error && recognised.pages.size === 0) throw recognised.error;
      throw new DossierError('skipped', `no text found by OCR in ${result.numPages}-page scanned PDF`);
    }
    const metadata: Record<string, unknown> = { pages: result.numPages };
    if (result.info.author) metadata.author = result.info.author;
    if (result.info.subject) metadata.subject = result.info.subject;
    if (result.info.creationDate) metadata.created = result.info.creationDate;
    if (recognised) {
      const read = [...recognised.pages.values()];
      if (read.length > 0) {
        metadata.ocr = true;
        metadata.ocrPages = read.length;
        metadata.ocrConfidence = Math.round(read.reduce((sum, page) => sum + page.confidence, 0) / read.length);
      }
      if (recognised.stopped)
        metadata.ocrIncomplete = `OCR read ${read.length} of ${scanned} scanned pages (stopped at ${recognised.stopped})`;
    }
    return { title: usefulTitle(result.info.title) ?? fileStem(path), mediaType: 'application/pdf', blocks, metadata };
  },
};
