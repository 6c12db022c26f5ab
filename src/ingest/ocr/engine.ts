import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker as NodeWorker } from 'node:worker_threads';
import type Tesseract from 'tesseract.js';
import { DossierError, oneLine } from '../../errors/index.ts';
import { retryable } from '../retryable.ts';
import { imageFormat, imageSize, type ImageFormat } from './formats.ts';
import { paragraphsOf, type OcrParagraph } from './layout.ts';

/** Longest OCR of one file (an image, or all scanned pages of a PDF together). */
export const OCR_TIMEOUT_MS = 120_000;
/** Most scanned PDF pages recognised per file; later scanned pages get no text and the document says so. */
export const OCR_MAX_PAGES = 50;
/** The limits in force: OCR_MAX_PAGES and OCR_TIMEOUT_MS, lowered by tests to reach them quickly. */
export const ocrLimits = { maxPages: OCR_MAX_PAGES, timeoutMs: OCR_TIMEOUT_MS };
/** Resolution scanned PDF pages are rendered at for OCR (tesseract reads best at about 300 dpi). */
export const OCR_RENDER_DPI = 300;
/** Below this mean confidence an image's text is not legible (other scripts, photos, noise) and counts as none. */
export const MIN_IMAGE_CONFIDENCE = 35;
/** The recognition language: the English weights of @tesseract.js-data/eng. */
export const OCR_LANGUAGE = 'eng';
/** Images smaller than this on their longer side are enlarged before OCR: tesseract misreads small type (a 72-dpi page scan goes from confidence 46 to 88). */
export const OCR_UPSCALE_BELOW = 1600;
/** ... to about this longer side, at most OCR_MAX_UPSCALE times. */
const OCR_UPSCALE_TARGET = 2400;
const OCR_MAX_UPSCALE = 3;
const START_TIMEOUT_MS = 30_000;
/** An engine left idle this long is terminated (it holds ~100 MB); the next image starts a new one. */
const IDLE_MS = 30_000;

export interface RecogniseOptions {
  signal?: AbortSignal;
  /** Default `ocrLimits.timeoutMs` (OCR_TIMEOUT_MS); counted from when recognition starts, not while queued behind another image. */
  timeoutMs?: number;
  /** Enlarge a small image before OCR (default true; a PDF page rendered at OCR_RENDER_DPI needs none). */
  enlarge?: boolean;
}

export interface OcrResult {
  /** The recognised text: paragraphs separated by a blank line, lines by a newline. Empty when the image holds none. */
  text: string;
  /** Tesseract's mean word confidence for the image, 0–100. */
  confidence: number;
  paragraphs: OcrParagraph[];
  format: ImageFormat;
  ms: number;
}

const require = createRequire(import.meta.url);
/** Our wrapper around tesseract.js's worker script (silences the wasm core's stderr chatter). */
const WORKER_PATH = fileURLToPath(new URL('./tesseract-worker.cjs', import.meta.url));

/**
 * Where the weights are: the LSTM-only ("best_int") English traineddata shipped inside the
 * @tesseract.js-data/eng package, read from node_modules — tesseract.js fetches from a CDN only
 * when no langPath is given, and `cacheMethod: 'none'` stops it reading or writing a cache copy
 * in the working directory.
 */
export function ocrData(): { langPath: string; file: string } {
  let root: string;
  try {
    root = dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  } catch {
    throw retryable(new DossierError('parse-failed', 'OCR data is not installed (the @tesseract.js-data/eng package is missing)'));
  }
  const langPath = join(root, '4.0.0_best_int');
  const file = join(langPath, `${OCR_LANGUAGE}.traineddata.gz`);
  if (!existsSync(file)) throw retryable(new DossierError('parse-failed', `OCR data is missing: ${file}`));
  return { langPath, file };
}

/** The options tesseract.js's createWorker gets: everything local, nothing cached, nothing fetched. */
export function workerOptions(): Partial<Tesseract.WorkerOptions> {
  return {
    langPath: ocrData().langPath,
    gzip: true,
    cacheMethod: 'none',
    workerPath: WORKER_PATH,
    logger: () => {},
    errorHandler: () => {},
  };
}

type TesseractWorker = Tesseract.Worker & { worker?: NodeWorker };

/** How much larger a small image is drawn for OCR (1: it is large enough, or its header says nothing). */
function enlargement(bytes: Uint8Array, format: ImageFormat): number {
  const size = imageSize(bytes, format);
  const longer = size ? Math.max(size.width, size.height) : 0;
  if (!longer || longer >= OCR_UPSCALE_BELOW) return 1;
  return Math.min(OCR_MAX_UPSCALE, OCR_UPSCALE_TARGET / longer);
}

/**
 * The image drawn `scale` times larger, as PNG. Never decoded natively from the caller's bytes
 * (@napi-rs/canvas crashes the process on a damaged PNG): Leptonica, inside tesseract's wasm,
 * decodes it and hands back a clean greyscale PNG, which the canvas then enlarges.
 */
async function enlarged(worker: TesseractWorker, bytes: Buffer, scale: number): Promise<Buffer> {
  const { data } = await worker.recognize(bytes, {}, { text: false, imageGrey: true });
  const clean = Buffer.from(String(data.imageGrey).replace(/^data:image\/png;base64,/, ''), 'base64');
  const { createCanvas, loadImage } = await import('@napi-rs/canvas');
  const image = await loadImage(clean);
  const canvas = createCanvas(Math.round(image.width * scale), Math.round(image.height * scale));
  const context = canvas.getContext('2d');
  context.imageSmoothingQuality = 'high';
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  return canvas.encode('png');
}

interface Running {
  worker: TesseractWorker;
  /** Rejects when the worker thread dies under a job. */
  exited: Promise<never>;
}

/** "OCR took longer than 120 s" (or "… 5 ms" for the tiny limits of tests). */
export function ocrTimeoutError(ms: number): DossierError {
  return retryable(
    new DossierError('parse-failed', `OCR took longer than ${ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 1000)} s`}`),
  );
}

function readError(error: unknown): DossierError {
  if (DossierError.isInstance(error)) return error;
  const message = oneLine(error).replace(/^Error:\s*/, '');
  if (/attempting to read image/i.test(message))
    return new DossierError('parse-failed', 'the image could not be decoded (damaged, or a variant OCR cannot read)');
  return new DossierError('parse-failed', `OCR failed: ${message.slice(0, 200)}`);
}

/**
 * One tesseract.js worker per thread (a prepare worker, or the main thread when ingesting in
 * place), started on the first image and reused; images queue for it one at a time. A job past its
 * deadline, aborted, or failed terminates the worker — the only way to stop the wasm — and the
 * next job starts a fresh one. The worker is unref'd while idle so it never keeps a process alive,
 * and terminated after IDLE_MS; a prepare thread's worker dies with the thread when the pool closes.
 */
class OcrEngine {
  private running: Promise<Running> | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private busy = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  recognise(bytes: Uint8Array, options: RecogniseOptions = {}): Promise<OcrResult> {
    this.busy++;
    clearTimeout(this.idleTimer);
    const job = this.queue
      .then(() => this.run(bytes, options))
      .finally(() => {
        if (--this.busy === 0) this.idle();
      });
    this.queue = job.catch(() => undefined);
    return job;
  }

  /** Terminates the worker once the jobs queued so far are done (nothing to do when none started). */
  async close(): Promise<void> {
    await this.queue;
    if (this.busy === 0) await this.stop();
  }

  private idle(): void {
    void this.running?.then(
      ({ worker }) => worker.worker?.unref(),
      () => undefined,
    );
    this.idleTimer = setTimeout(() => void this.stop(), IDLE_MS);
    this.idleTimer.unref();
  }

  private async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const running = this.running;
    this.running = undefined;
    const started = await running?.catch(() => undefined);
    if (started) await started.worker.terminate().catch(() => undefined);
  }

  private start(): Promise<Running> {
    this.running ??= (async () => {
      const options = workerOptions();
      const { createWorker, OEM, PSM } = (await import('tesseract.js')).default;
      let timer: NodeJS.Timeout | undefined;
      const worker = (await Promise.race([
        createWorker(OCR_LANGUAGE, OEM.LSTM_ONLY, options),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(retryable(new DossierError('parse-failed', `OCR engine did not start within ${START_TIMEOUT_MS / 1000} s`))),
            START_TIMEOUT_MS,
          );
        }),
      ]).finally(() => clearTimeout(timer))) as TesseractWorker;
      // tesseract.js defaults to one uniform block of text (PSM 6); full layout analysis finds
      // headings, columns and paragraphs. debug_file keeps tesseract's own messages off stderr.
      await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, debug_file: '/dev/null' });
      const exited = new Promise<never>((_, reject) => {
        worker.worker?.once('exit', (code) => reject(retryable(new DossierError('parse-failed', `OCR engine exited with code ${code}`))));
      });
      exited.catch(() => undefined);
      return { worker, exited };
    })();
    // A failed start is not remembered: the next image tries again.
    this.running.catch(() => (this.running = undefined));
    return this.running;
  }

  private async run(bytes: Uint8Array, { signal, timeoutMs = ocrLimits.timeoutMs, enlarge = true }: RecogniseOptions): Promise<OcrResult> {
    if (signal?.aborted) throw new DossierError('aborted', 'OCR aborted');
    if (bytes.byteLength === 0) throw new DossierError('empty-document', 'empty image file');
    const format = imageFormat(bytes);
    if (!format) throw new DossierError('parse-failed', 'not an image OCR can read (png, jpeg, tiff, webp, bmp or gif)');
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(ocrTimeoutError(timeoutMs)), timeoutMs);
      onAbort = () => reject(new DossierError('aborted', 'OCR aborted'));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    try {
      const { worker, exited } = await Promise.race([this.start(), limit]);
      worker.worker?.ref(); // a pending job keeps the process alive
      let image = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      const scale = enlarge ? enlargement(bytes, format) : 1;
      if (scale > 1) {
        const larger = enlarged(worker, image, scale);
        larger.catch(() => undefined);
        image = await Promise.race([larger, limit, exited]);
      }
      const job = worker.recognize(image, {}, { text: true, blocks: true });
      job.catch(() => undefined);
      const { data } = await Promise.race([job, limit, exited]);
      const paragraphs = paragraphsOf(data.blocks);
      const text = paragraphs.map((paragraph) => paragraph.lines.join('\n')).join('\n\n');
      return { text, confidence: Math.round(data.confidence ?? 0), paragraphs, format, ms: Math.round(performance.now() - started) };
    } catch (error) {
      // A timed-out, aborted, crashed or failed engine is not trusted with the next image.
      await this.stop();
      throw readError(error);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}

const engine = new OcrEngine();

/**
 * Recognises the text in one image (png, jpeg, tiff, webp, bmp, gif) with tesseract.js, offline.
 * Throws a one-line DossierError: 'parse-failed' for bytes it cannot decode or a run past
 * `timeoutMs`, 'aborted' when `signal` fires, 'empty-document' for no bytes. An image without text
 * is not an error: `text` is empty.
 */
export function recognise(bytes: Uint8Array, options: RecogniseOptions = {}): Promise<OcrResult> {
  return engine.recognise(bytes, options);
}

/** Terminates this thread's OCR worker once its queued images are done; a no-op when none was started. */
export function closeOcr(): Promise<void> {
  return engine.close();
}
