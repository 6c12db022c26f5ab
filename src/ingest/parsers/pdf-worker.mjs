// Runs pdf.js in a worker thread so a PDF that makes it spin can be killed by the parent's timeout;
// plain JavaScript so it loads the same way under tsx, node or a bundler.
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

async function extract(bytes) {
  const pdfjs = await pdfjsPromise;
  const task = pdfjs.getDocument({
    data: bytes,
    cMapUrl: join(root, 'cmaps') + '/',
    cMapPacked: true,
    standardFontDataUrl: join(root, 'standard_fonts') + '/',
    wasmUrl: join(root, 'wasm') + '/',
    iccUrl: join(root, 'iccs') + '/',
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    verbosity: 0,
  });
  const doc = await task.promise;
  try {
    const pages = [];
    for (let number = 1; number <= doc.numPages; number++) {
      const page = await doc.getPage(number);
      const content = await page.getTextContent();
      pages.push({ page: number, text: pageText(content.items) });
      page.cleanup();
    }
    let info = {};
    try {
      info = (await doc.getMetadata()).info ?? {};
    } catch {
      // Broken metadata should not cost us the text.
    }
    return { numPages: doc.numPages, pages, info: { title: info.Title, author: info.Author, subject: info.Subject, creationDate: info.CreationDate } };
  } finally {
    await task.destroy();
  }
}

parentPort.on('message', async ({ id, bytes }) => {
  try {
    const result = await extract(bytes);
    parentPort.postMessage({ id, ok: true, result });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } });
  }
});
