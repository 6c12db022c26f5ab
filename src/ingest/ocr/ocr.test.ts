/**
 * OCR end to end with the real tesseract.js engine and the English weights from node_modules: images
 * made here with @napi-rs/canvas, the two check files of docs-mixed (test.jpg and the scanned
 * medical report, scored against typed transcriptions in test/fixtures/ocr), failures, time limits,
 * --no-ocr, and proof that nothing touches the network.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import { createDossier } from '../../dossier.ts';
import { DossierError } from '../../errors/index.ts';
import { REPO_ROOT, runCli, SHARED_DATA, sharedDataMissing, startCli, tempDir } from '../../../test/helpers.ts';
import { assertParsedDocument } from '../parsers/contract.ts';
import { imageParser, parseDocument, pdfParser } from '../parsers/index.ts';
import { closeOcr, imageFormat, joinHyphenated, ocrData, ocrLimits, paragraphsOf, recognise, workerOptions } from './index.ts';

const MARKITDOWN = join(SHARED_DATA, 'docs-mixed', 'markitdown');
const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'ocr');
const noFonts = GlobalFonts.families.length === 0 ? 'no system fonts for @napi-rs/canvas to draw text with' : false;

/** A white image with black lines of text, encoded as `format`. */
function textImage(lines: string[], format: 'png' | 'jpeg' | 'webp' | 'gif' = 'png', width = 900): Buffer {
  const canvas = createCanvas(width, 60 + lines.length * 56);
  const context = canvas.getContext('2d');
  context.fillStyle = 'white';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.fillStyle = 'black';
  context.font = '36px "DejaVu Sans", sans-serif';
  lines.forEach((line, i) => context.fillText(line, 24, 70 + i * 56));
  return canvas.encodeSync(format as 'png');
}

function blankPng(width = 320, height = 200): Buffer {
  const canvas = createCanvas(width, height);
  const context = canvas.getContext('2d');
  context.fillStyle = 'white';
  context.fillRect(0, 0, width, height);
  return canvas.encodeSync('png');
}

/** A PDF of scanned pages: each page is one JPEG painted over the whole page, no text layer. */
function scannedPdf(pages: Buffer[][]): Buffer {
  const objects: Buffer[] = [];
  const add = (body: Buffer | string) => objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body) && objects.length;
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // the page tree, written once the page ids are known
  const kids: number[] = [];
  for (const [jpeg, size] of pages) {
    const [width, height] = [size.readUInt32BE(0), size.readUInt32BE(4)];
    const image = add(
      Buffer.concat([
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`,
          'latin1',
        ),
        jpeg,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
    const draw = 'q 612 0 0 792 0 0 cm /Im0 Do Q';
    const content = add(`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`);
    kids.push(
      add(
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${content} 0 R /Resources << /XObject << /Im0 ${image} 0 R >> >> >>`,
      ),
    );
  }
  objects[1] = Buffer.from(`<< /Type /Pages /Kids [${kids.map((id) => `${id} 0 R`).join(' ')}] /Count ${kids.length} >>`, 'latin1');
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n', 'latin1')];
  let length = parts[0].length;
  const offsets = objects.map((body, i) => {
    const offset = length;
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), body, Buffer.from('\nendobj\n', 'latin1')]);
    parts.push(chunk);
    length += chunk.length;
    return offset;
  });
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
      'latin1',
    ),
  );
  return Buffer.concat(parts);
}

/** A letter-size page scanned at 100 dpi saying `text`, as [jpeg, width/height]. */
function scannedPage(text: string): Buffer[] {
  const canvas = createCanvas(850, 1100);
  const context = canvas.getContext('2d');
  context.fillStyle = 'white';
  context.fillRect(0, 0, 850, 1100);
  context.fillStyle = 'black';
  context.font = '28px "DejaVu Sans", sans-serif';
  context.fillText(text, 80, 200);
  const size = Buffer.alloc(8);
  size.writeUInt32BE(850, 0);
  size.writeUInt32BE(1100, 4);
  return [canvas.encodeSync('jpeg'), size];
}

const words = (text: string) => text.toLowerCase().match(/[a-z]{4,}/g) ?? [];

/** Share of the distinct words (4+ letters) of `expected` that `text` contains. */
function coverage(expected: string, text: string): number {
  const want = new Set(words(expected));
  const got = new Set(words(text));
  return [...want].filter((word) => got.has(word)).length / want.size;
}

async function rejection(work: Promise<unknown>): Promise<DossierError> {
  try {
    await work;
  } catch (error) {
    assert.ok(DossierError.isInstance(error), `expected a DossierError, got ${String(error)}`);
    assert.ok(!error.message.includes('\n'), 'one line');
    return error;
  }
  assert.fail('expected a rejection');
}

describe('OCR', { timeout: 240_000 }, () => {
  it('reads its weights from node_modules and is configured never to fetch or cache', () => {
    const { langPath, file } = ocrData();
    assert.ok(existsSync(file), file);
    // Real paths: node_modules may be a link (a worktree sharing the repo's), resolved by require.
    assert.ok(realpathSync(langPath).startsWith(realpathSync(join(REPO_ROOT, 'node_modules', '@tesseract.js-data', 'eng'))), langPath);
    const options = workerOptions();
    assert.equal(options.cacheMethod, 'none');
    assert.equal(options.langPath, langPath);
    assert.ok(!/^[a-z]+:\/\//i.test(options.langPath!), 'a path, not a URL');
    assert.ok(existsSync(options.workerPath!), 'our worker wrapper exists');
  });

  it('knows image formats by their magic numbers', () => {
    assert.equal(imageFormat(blankPng()), 'png');
    assert.equal(imageFormat(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])), 'jpeg');
    assert.equal(imageFormat(Buffer.from('GIF89a....')), 'gif');
    assert.equal(imageFormat(Buffer.from('II*\0....')), 'tiff');
    assert.equal(imageFormat(Buffer.from('RIFF\0\0\0\0WEBPVP8 ')), 'webp');
    assert.equal(imageFormat(Buffer.from('BMW service report, page one of three')), undefined, 'text starting with BM is not a bitmap');
    assert.equal(imageFormat(Buffer.from('plain text')), undefined);
  });

  it('layout: drops noise lines, joins words broken at a line end, marks large type as a heading', () => {
    assert.deepEqual(joinHyphenated(['build LLM ap-', 'plications via agents', 'Multi-', 'Agent']), [
      'build LLM applications',
      'via agents',
      'Multi-',
      'Agent',
    ]);
    const line = (text: string, confidence: number, y0: number, height: number) => ({
      text,
      confidence,
      bbox: { x0: 0, y0, x1: 500, y1: y0 + height },
    });
    const paragraphs = paragraphsOf([
      { blocktype: 1, paragraphs: [{ lines: [line('Harbour Report', 95, 0, 48)] }] },
      {
        blocktype: 1,
        paragraphs: [
          {
            lines: [
              line('The lighthouse was built in 1871.', 92, 80, 22),
              line('~ ;: |', 20, 110, 22),
              {
                ...line('Keeper Mivize Jones', 60, 125, 22),
                words: [
                  { text: 'Keeper', confidence: 90 },
                  { text: 'Mivize', confidence: 0 },
                  { text: 'Jones', confidence: 88 },
                ],
              },
              line('Its lamp is seen 18 miles away.', 90, 140, 22),
            ],
          },
        ],
      },
      { blocktype: 1, paragraphs: [{ lines: [line('—', 88, 200, 22)] }] },
    ]);
    assert.deepEqual(paragraphs, [
      { lines: ['Harbour Report'], confidence: 95, heading: 1 },
      { lines: ['The lighthouse was built in 1871.', 'Keeper Jones', 'Its lamp is seen 18 miles away.'], confidence: 81 },
    ]);
  });

  it('recognises png, jpeg, webp and gif; a blank image has no text', { skip: noFonts }, async (t) => {
    const lines = ['Quokkas live on Rottnest Island', 'near Perth in Western Australia'];
    for (const format of ['png', 'jpeg', 'webp', 'gif'] as const) {
      const result = await recognise(textImage(lines, format));
      t.diagnostic(`${format}: ${result.ms} ms, confidence ${result.confidence}`);
      assert.equal(result.format, format);
      assert.ok(coverage(lines.join(' '), result.text) >= 0.8, `${format}: ${JSON.stringify(result.text)}`);
      assert.ok(result.confidence > 60);
    }
    const blank = await recognise(blankPng());
    assert.equal(blank.text, '');
  });

  it('an image becomes a document titled by its file name, lines and paragraphs kept as blocks', { skip: noFonts }, async () => {
    const bytes = textImage([
      'Opening hours of the harbour museum',
      'Monday to Friday from nine to five',
      '',
      'Tickets cost twelve dollars',
    ]);
    const doc = await imageParser.parse({ path: '/photos/museum-sign.png', bytes });
    assertParsedDocument(doc, imageParser);
    assert.equal(doc.title, 'museum-sign');
    assert.equal(doc.mediaType, 'image/png');
    assert.equal(doc.metadata.ocr, true);
    assert.equal(typeof doc.metadata.ocrConfidence, 'number');
    const text = doc.blocks.map((b) => b.text).join('\n\n');
    assert.match(text, /harbour museum\nMonday/, 'lines of one paragraph stay lines');
    assert.ok(doc.blocks.length >= 2, 'paragraphs are blocks');
    // Registered: found by extension, and by its bytes when the name says nothing.
    assert.equal((await parseDocument({ path: 'museum-sign', bytes })).mediaType, 'image/png');
  });

  it('an image without text is skipped with a reason; --no-ocr skips every image; unreadable bytes are a one-line failure', async () => {
    const blank = await rejection(imageParser.parse({ path: 'blank.png', bytes: blankPng() }));
    assert.equal(blank.code, 'skipped');
    assert.match(blank.message, /no text found in the image/);
    const off = await rejection(parseDocument({ path: 'blank.png', bytes: blankPng(), ocr: false }));
    assert.equal(off.code, 'skipped');
    assert.match(off.message, /OCR is off/);
    const broken = Buffer.concat([blankPng().subarray(0, 40), Buffer.alloc(400, 7)]);
    const damaged = await rejection(imageParser.parse({ path: 'broken.png', bytes: broken }));
    assert.equal(damaged.code, 'parse-failed');
    assert.match(damaged.message, /could not be decoded/);
    const notImage = await rejection(imageParser.parse({ path: 'fake.jpg', bytes: Buffer.from('this is text pretending to be a photo') }));
    assert.equal(notImage.code, 'parse-failed');
    // A failure leaves a working engine behind.
    assert.equal((await recognise(blankPng())).text, '');
  });

  it('a time limit and an abort stop recognition with a one-line error; the next image still works', { skip: noFonts }, async () => {
    const bytes = textImage(['Time limits keep a batch moving']);
    const slow = await rejection(recognise(bytes, { timeoutMs: 1 }));
    assert.equal(slow.code, 'parse-failed');
    assert.match(slow.message, /OCR took longer than 1 ms/);
    const controller = new AbortController();
    const aborted = recognise(bytes, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    assert.equal((await rejection(aborted)).code, 'aborted');
    assert.match((await recognise(bytes)).text, /Time limits keep a batch moving/);
  });

  it('test.jpg: the words a person sees', { skip: sharedDataMissing('docs-mixed/markitdown/test.jpg') }, async (t) => {
    const started = performance.now();
    const doc = await parseDocument({ path: join(MARKITDOWN, 'test.jpg'), bytes: readFileSync(join(MARKITDOWN, 'test.jpg')) });
    t.diagnostic(`test.jpg (1615×1967): ${Math.round(performance.now() - started)} ms`);
    assert.equal(doc.title, 'test');
    assert.equal(doc.mediaType, 'image/jpeg');
    assert.ok((doc.metadata.ocrConfidence as number) > 70, `confidence ${doc.metadata.ocrConfidence}`);
    const text = doc.blocks.map((b) => b.text).join('\n');
    const covered = coverage(readFileSync(join(FIXTURES, 'test.jpg.txt'), 'utf8'), text);
    t.diagnostic(`test.jpg: ${(covered * 100).toFixed(1)}% of the expected words`);
    assert.ok(covered >= 0.8, `${(covered * 100).toFixed(0)}% of the expected words`);
    assert.ok(
      doc.blocks.some((b) => b.type === 'heading' && /AutoGen: Enabling Next-Gen LLM/.test(b.text)),
      'the paper title is a heading',
    );
    assert.match(text, /AutoGen agents are conversable, customizable/);
  });

  it("scanned PDF: each page rendered and OCR'd, page numbers kept, metadata says so", {
    skip: sharedDataMissing('docs-mixed/markitdown/MEDRPT-2024-PAT-3847_medical_report_scan.pdf'),
  }, async (t) => {
    const path = join(MARKITDOWN, 'MEDRPT-2024-PAT-3847_medical_report_scan.pdf');
    const started = performance.now();
    const doc = await pdfParser.parse({ path, bytes: readFileSync(path) });
    const ms = performance.now() - started;
    t.diagnostic(`scanned PDF: 3 pages in ${Math.round(ms)} ms (${Math.round(ms / 3)} ms a page, rendering at 300 dpi included)`);
    assertParsedDocument(doc, pdfParser);
    assert.equal(doc.metadata.ocr, true);
    assert.equal(doc.metadata.ocrPages, 3);
    assert.equal(doc.metadata.ocrIncomplete, undefined);
    assert.ok((doc.metadata.ocrConfidence as number) > 70);
    assert.deepEqual([...new Set(doc.blocks.map((b) => b.page))], [1, 2, 3]);
    const text = doc.blocks.map((b) => b.text).join('\n');
    const covered = coverage(readFileSync(join(FIXTURES, 'MEDRPT-2024-PAT-3847_medical_report_scan.txt'), 'utf8'), text);
    t.diagnostic(`scanned PDF: ${(covered * 100).toFixed(1)}% of the expected words`);
    assert.ok(covered >= 0.8, `${(covered * 100).toFixed(0)}% of the expected words`);
    for (const phrase of ['SEATTLE GENERAL HOSPITAL', 'Jonathan Michael Harrison', 'Start Atorvastatin 20mg once daily at bedtime'])
      assert.ok(text.includes(phrase), phrase);
    const pageOf = (phrase: string) => doc.blocks.find((b) => b.text.includes(phrase))?.page;
    assert.deepEqual([pageOf('CHIEF COMPLAINT'), pageOf('LABORATORY RESULTS'), pageOf('TREATMENT PLAN')], [1, 2, 3]);
  });

  it('scanned PDF limits: past the page limit the document says so; past the time limit with nothing read it fails in one line', {
    skip: noFonts,
  }, async () => {
    const pdf = scannedPdf([
      scannedPage('The first page talks about lighthouses'),
      scannedPage('The second page talks about harbours'),
      scannedPage('The third page talks about ferries'),
    ]);
    const saved = { ...ocrLimits };
    try {
      const whole = await pdfParser.parse({ path: 'scan.pdf', bytes: pdf });
      assert.deepEqual(
        whole.blocks.map((b) => [b.page, b.text]),
        [
          [1, 'The first page talks about lighthouses'],
          [2, 'The second page talks about harbours'],
          [3, 'The third page talks about ferries'],
        ],
      );
      assert.equal(whole.metadata.ocrPages, 3);
      ocrLimits.maxPages = 2;
      const partial = await pdfParser.parse({ path: 'scan.pdf', bytes: pdf });
      assert.deepEqual(
        partial.blocks.map((b) => b.page),
        [1, 2],
      );
      assert.equal(partial.metadata.ocrIncomplete, 'OCR read 2 of 3 scanned pages (stopped at the 2-page limit)');
      ocrLimits.timeoutMs = 1;
      const slow = await rejection(pdfParser.parse({ path: 'scan.pdf', bytes: pdf }));
      assert.equal(slow.code, 'parse-failed');
      assert.match(slow.message, /^OCR took longer than 1 ms$/);
      ocrLimits.maxPages = saved.maxPages;
      ocrLimits.timeoutMs = saved.timeoutMs;
      const off = await rejection(pdfParser.parse({ path: 'scan.pdf', bytes: pdf, ocr: false }));
      assert.equal(off.code, 'skipped');
      assert.equal(off.message, 'scanned PDF (3 of 3 pages are images), and OCR is off');
    } finally {
      Object.assign(ocrLimits, saved);
    }
  });

  it('ingest: images are documents, a blank one is in skippedFiles, --no-ocr skips them; the CLI shows why', {
    skip: noFonts,
  }, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const files = join(dir, 'scans');
      const { mkdirSync } = await import('node:fs');
      mkdirSync(files);
      writeFileSync(join(files, 'ferry-timetable.png'), textImage(['The ferry to Rottnest leaves at 9 am', 'and returns at 4 pm']));
      writeFileSync(join(files, 'blank.png'), blankPng());
      writeFileSync(join(files, 'notes.txt'), 'Plain notes about the ferry.');
      const db = join(dir, 'index.db');
      const dossier = await createDossier({ db });
      const report = await dossier.ingest([files]);
      assert.deepEqual([report.ingested, report.skipped, report.failed], [2, 1, []]);
      assert.deepEqual(report.skippedFiles, [{ path: join(files, 'blank.png'), reason: 'no text found in the image (OCR)' }]);
      const [hit] = await dossier.search({ query: 'ferry Rottnest leaves', mode: 'fulltext', k: 1 });
      assert.equal(hit.title, 'ferry-timetable');
      assert.equal((await dossier.store.getDocument({ collections: '*' }, hit.documentId))?.metadata.ocr, true);
      await dossier.close();

      const human = await runCli(['ingest', files, '--db', join(dir, 'other.db'), '--no-ocr']);
      assert.equal(human.status, 0, human.stderr);
      assert.match(human.stdout, /ingested 1 .*skipped 2 \(0 unchanged\)/);
      assert.match(human.stdout, /ferry-timetable\.png: skipped, image, and OCR is off/);
      const json = await runCli(['ingest', files, '--db', db, '--json']);
      assert.equal(json.status, 0);
      assert.equal(json.json.skipped, 3, 'unchanged files and the blank image');
      // The blank image is remembered by its content hash: not OCR'd again, and the reason says so.
      assert.deepEqual(
        json.json.skippedFiles.map((s: { reason: string }) => s.reason),
        ['unchanged since it was skipped: no text found in the image (OCR)'],
      );
    } finally {
      cleanup();
    }
  });

  it('never uses the network: OCR of an image and of a scanned PDF with sockets, DNS and fetch refused', { skip: noFonts }, () => {
    const { dir, cleanup } = tempDir();
    try {
      const log = join(dir, 'network.log');
      writeFileSync(join(dir, 'sign.png'), textImage(['No network was harmed']));
      const pdf = join(MARKITDOWN, 'MEDRPT-2024-PAT-3847_medical_report_scan.pdf');
      const script = join(dir, 'run.mts');
      writeFileSync(
        script,
        `import { readFileSync, existsSync } from 'node:fs';
import { parseDocument } from ${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'src/ingest/parsers/index.ts')).href)};
const image = await parseDocument({ path: 'sign.png', bytes: readFileSync('sign.png') });
const scanned = existsSync(${JSON.stringify(pdf)}) ? await parseDocument({ path: 'scan.pdf', bytes: readFileSync(${JSON.stringify(pdf)}) }) : undefined;
console.log(JSON.stringify({ image: image.blocks.map((b) => b.text).join(' '), scannedPages: scanned?.metadata.ocrPages }));
`,
      );
      const child = spawnSync(
        process.execPath,
        ['--import', import.meta.resolve('tsx'), '--import', pathToFileURL(join(FIXTURES, 'no-network.mjs')).href, script],
        {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, NO_NETWORK_LOG: log },
          timeout: 120_000,
        },
      );
      assert.equal(child.status, 0, child.stderr);
      const out = JSON.parse(child.stdout.trim().split('\n').at(-1)!);
      assert.match(out.image, /No network was harmed/);
      if (existsSync(pdf)) assert.equal(out.scannedPages, 3);
      assert.equal(existsSync(log), false, existsSync(log) ? readFileSync(log, 'utf8') : '');
      assert.deepEqual(readdirSync(dir).sort(), ['run.mts', 'sign.png'], 'no traineddata cached in the working directory');
    } finally {
      cleanup();
    }
  });

  it('the built CLI OCRs in its worker pool and exits as soon as the report is out', { skip: noFonts }, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const places = ['Albany', 'Broome', 'Cairns', 'Darwin', 'Esperance', 'Fremantle', 'Geraldton', 'Hobart'];
      for (const place of places) writeFileSync(join(dir, `${place}.png`), textImage([`The ferry from ${place} leaves at noon`]));
      writeFileSync(join(dir, 'blank.png'), blankPng());
      const child = startCli(['ingest', dir, '--db', join(dir, 'index.db'), '--json']);
      let stdout = '';
      let printed = 0;
      child.stdout.on('data', (data) => {
        stdout += data;
        printed = performance.now();
      });
      const status = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      const lingered = performance.now() - printed;
      const report = JSON.parse(stdout);
      assert.equal(status, 0);
      assert.equal(report.ingested, places.length, JSON.stringify(report.failed));
      assert.deepEqual(
        report.skippedFiles.map((s: { path: string }) => s.path),
        [join(dir, 'blank.png')],
      );
      assert.ok(lingered < 3000, `the process lingered ${Math.round(lingered)} ms after its report`);
    } finally {
      cleanup();
    }
  });

  it('closeOcr terminates the engine; the next image starts a new one', { skip: noFonts }, async () => {
    await closeOcr();
    assert.match((await recognise(textImage(['Started again']))).text, /Started again/);
    await closeOcr();
  });
});
