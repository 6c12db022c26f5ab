import { Worker } from 'node:worker_threads';
import { DossierError, oneLine } from '../../errors/index.ts';
import type { Block, Parser } from '../types.ts';
import { fileStem, paragraphsOf, timeoutFor, usefulTitle } from './util.ts';

interface PdfResult {
  numPages: number;
  pages: { page: number; text: string }[];
  info: { title?: string; author?: string; subject?: string; creationDate?: string };
}
type Reply = { id: number; ok: true; result: PdfResult } | { id: number; ok: false; error: { name: string; message: string } };

/**
 * One long-lived worker runs pdf.js (loading it costs ~100 ms), one PDF at a time. A job past its
 * deadline terminates the worker — the only way to stop a synchronous loop — and the next job
 * starts a fresh one. The worker is unref'd while idle so it never keeps the process alive.
 */
class PdfWorker {
  private worker: Worker | undefined;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();

  run(bytes: Uint8Array, timeoutMs: number): Promise<PdfResult> {
    const job = this.queue.then(() => this.runNow(bytes, timeoutMs));
    this.queue = job.catch(() => undefined);
    return job;
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

  private runNow(bytes: Uint8Array, timeoutMs: number): Promise<PdfResult> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise<PdfResult>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.unref();
      };
      const onMessage = (reply: Reply) => {
        if (reply.id !== id) return;
        finish();
        if (reply.ok) resolve(reply.result);
        else reject(errorFromWorker(reply.error));
      };
      const onError = (error: Error) => {
        finish();
        reject(new DossierError('parse-failed', `PDF reader crashed: ${oneLine(error)}`, { cause: error }));
      };
      const onExit = (code: number) => {
        finish();
        reject(new DossierError('parse-failed', `PDF reader exited with code ${code}`));
      };
      const timer = setTimeout(() => {
        finish();
        this.worker = undefined;
        void worker.terminate();
        reject(new DossierError('parse-failed', `PDF text extraction took longer than ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.ref(); // keep the process alive while a job is pending
      // Copy so the caller's buffer is never detached by the transfer.
      const copy = new Uint8Array(bytes);
      worker.postMessage({ id, bytes: copy }, [copy.buffer]);
    });
  }
}

function errorFromWorker(error: { name: string; message: string }): DossierError {
  if (error.name === 'PasswordException') return new DossierError('encrypted-document', 'password-protected PDF');
  if (error.name === 'InvalidPDFException') return new DossierError('parse-failed', `malformed PDF: ${oneLine(error.message)}`);
  return new DossierError('parse-failed', `malformed PDF: ${oneLine(`${error.name}: ${error.message}`)}`);
}

const pdfWorker = new PdfWorker();

export const pdfParser: Parser = {
  name: 'pdf',
  extensions: ['pdf'],
  mediaTypes: ['application/pdf'],
  async parse({ path, bytes }) {
    if (bytes.byteLength === 0) throw new DossierError('empty-document', 'empty PDF file');
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString('latin1');
    if (!head.includes('%PDF-')) throw new DossierError('parse-failed', 'malformed PDF: no %PDF header');
    const result = await pdfWorker.run(bytes, timeoutFor(bytes));
    const blocks: Block[] = [];
    for (const { page, text } of result.pages) blocks.push(...paragraphsOf(text, page));
    if (blocks.length === 0) {
      throw new DossierError('empty-document', `no extractable text in ${result.numPages}-page PDF (scanned images need OCR)`);
    }
    const metadata: Record<string, unknown> = { pages: result.numPages };
    if (result.info.author) metadata.author = result.info.author;
    if (result.info.subject) metadata.subject = result.info.subject;
    if (result.info.creationDate) metadata.created = result.info.creationDate;
    return { title: usefulTitle(result.info.title) ?? fileStem(path), mediaType: 'application/pdf', blocks, metadata };
  },
};
