// Runs pdf.js in a worker thread so a PDF that makes it spin can be killed by the parent's timeout;
// plain JavaScript so it loads the same way under tsx, node or a bundler.
//
// Protocol: `{id, bytes, keepOpen}` → `{id, ok, result}` with each page's text and the numbers of the
// pages that look scanned (almost no text layer, but an image painted). With `keepOpen` and scanned
// pages, the document stays open for `{id, render: page, dpi, maxSide}` → `{id, page, ok, png}` (the page
// rendered through @napi-rs/canvas, for OCR in the parent thread) until `{id, close: true}`.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort } from 'node:worker_threads';

const require = createRequire(import.meta.url);
const root = dirname(require.resolve('pdfjs-dist/package.json'));
const pdfjsPromise = import('pdfjs-dist/legacy/build/pdf.mjs');

/** Joins text items into lines; a vertical gap well beyond the line height starts a new paragraph. */
function pageText(items) {
  let text = '';
  let lastY = null;
  let lastHeight = 0;
  for (const item of items) {
    if (typeof item.str !== 'string') continue;
    const y = item.transform[5];
    const height = item.height || Math.abs(item.transform[3]) || 0;
    if (lastY !== null && (text.endsWith('\n') || text === '') && item.str.trim()) {
      if (Math.abs(lastY - y) > 1.8 * Math.max(height, lastHeight, 1)) text += '\n';
    }
    text += item.str;
    if (item.hasEOL) text += '\n';
    if (item.str.trim()) {
      lastY = y;
      lastHeight = height;
    }
  }
  return text;
}

/** A page whose text layer has fewer visible characters than this, and that paints an image, is scanned. */
const MIN_TEXT_LAYER_CHARS = 32;
const IMAGE_OPS = [
  'paintImageXObject',
  'paintInlineImageXObject',
  'paintImageXObjectRepeat',
  'paintInlineImageXObjectGroup',
  'paintImageMaskXObject',
  'paintImageMaskXObjectGroup',
  'paintImageMaskXObjectRepeat',
];

async function paintsImage(pdfjs, page) {
  const ops = new Set(IMAGE_OPS.map((name) => pdfjs.OPS[name]));
  const list = await page.getOperatorList();
  return list.fnArray.some((fn) => ops.has(fn));
}

/** Open documents kept for rendering scanned pages, by job id. */
const open = new Map();

async function render(doc, number, dpi, maxSide) {
  const page = await doc.getPage(number);
  try {
    const [, , width, height] = page.view.map(Math.abs);
    const scale = Math.min(dpi / 72, maxSide / Math.max(width, height, 1));
    const viewport = page.getViewport({ scale });
    const { canvas, context } = doc.canvasFactory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
    await page.render({ canvasContext: context, canvas, viewport, background: 'rgb(255,255,255)' }).promise;
    const png = new Uint8Array(canvas.toBuffer('image/png'));
    doc.canvasFactory.destroy({ canvas, context });
    return png;
  } finally {
    page.cleanup();
  }
}

async function extract(id, bytes, keepOpen) {
  const pdfjs = await pdfjsPromise;
  const task = pdfjs.getDocument({
    data: bytes,
    cMapUrl: `${join(root, 'cmaps')}/`,
    cMapPacked: true,
    standardFontDataUrl: `${join(root, 'standard_fonts')}/`,
    wasmUrl: `${join(root, 'wasm')}/`,
    iccUrl: `${join(root, 'iccs')}/`,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  });
  const doc = await task.promise;
  let kept = false;
  try {
    const pages = [];
    const scanned = [];
    for (let number = 1; number <= doc.numPages; number++) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      const text = pageText(content.items);
      pages.push({ page: number, text });
      if (text.replace(/\s+/g, '').length < MIN_TEXT_LAYER_CHARS && (await paintsImage(pdfjs, page))) scanned.push(number);
      page.cleanup();
    }
    let info = {};
    try {
      info = (await doc.getMetadata()).info ?? {};
    } catch {
      // Broken metadata should not cost us the text.
    }
    if (keepOpen && scanned.length > 0) {
      open.set(id, { doc, task });
      kept = true;
    }
    return {
      numPages: doc.numPages,
      pages,
      scanned,
      info: { title: info.Title, author: info.Author, subject: info.Subject, creationDate: info.CreationDate },
    };
  } finally {
    if (!kept) await task.destroy();
  }
}

function errorOf(error) {
  return { name: error?.name ?? 'Error', message: String(error?.message ?? error) };
}

parentPort.on('message', async (message) => {
  const { id } = message;
  if (message.close) {
    const entry = open.get(id);
    open.delete(id);
    await entry?.task.destroy().catch(() => {});
    return;
  }
  if (message.render !== undefined) {
    const entry = open.get(id);
    try {
      if (!entry) throw new Error('the document is no longer open');
      const png = await render(entry.doc, message.render, message.dpi, message.maxSide);
      parentPort.postMessage({ id, page: message.render, ok: true, png }, [png.buffer]);
    } catch (error) {
      parentPort.postMessage({ id, page: message.render, ok: false, error: errorOf(error) });
    }
    return;
  }
  try {
    const result = await extract(id, message.bytes, message.keepOpen === true);
    parentPort.postMessage({ id, ok: true, result });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: errorOf(error) });
  }
});
