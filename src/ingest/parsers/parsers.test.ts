/** Behaviour of individual parsers on real files (docs-mixed) and on small made-up inputs. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { zipSync, strToU8 } from 'fflate';
import { DossierError } from '../../errors/index.ts';
import type { Block, ParsedDocument } from '../types.ts';
import { assertDossierError } from './contract.ts';
import { FORMATS, parseDocument, parserFor, parsers, supportedExtensions } from './index.ts';
import { DOCS_MIXED, docsMixedFile, hasDocsMixed, SKIP_REASON } from './test-data.ts';

const encode = (text: string) => new TextEncoder().encode(text);
const textOf = (doc: ParsedDocument) => doc.blocks.map((b) => b.text).join('\n');
const squash = (text: string) => text.replace(/\s+/g, ' ');

async function parseFile(relative: string): Promise<ParsedDocument> {
  const file = docsMixedFile(relative);
  assert.ok(file, `missing ${relative}`);
  return parseDocument(file);
}

async function parseError(relative: string): Promise<DossierError> {
  try {
    await parseFile(relative);
  } catch (error) {
    assert.ok(DossierError.isInstance(error), String(error));
    return error;
  }
  assert.fail(`${relative} parsed but should have failed`);
}

const data = { skip: hasDocsMixed ? false : SKIP_REASON };

test('registry: extensions, media types, unknown formats', async () => {
  assert.equal(parserFor('a/b/Report.PDF')?.name, 'pdf');
  assert.equal(parserFor('notes.markdown')?.name, 'markdown');
  assert.equal(parserFor('x.unknown', 'text/html; charset=utf-8')?.name, 'html');
  assert.equal(parserFor('photo.jpg')?.name, 'image');
  assert.equal(parserFor('photo.heic'), undefined);
  assert.ok(supportedExtensions().includes('docx') && supportedExtensions().includes('jsonl') && supportedExtensions().includes('png'));
  await assert.rejects(
    parseDocument({ path: 'photo.heic', bytes: new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63]) }),
    (e) => {
      assertDossierError(e, ['unsupported-format']);
      return true;
    },
  );
  // No extension: the bytes decide.
  const sniffed = await parseDocument({ path: 'README', bytes: encode('# Title\n\nSome words here.') });
  assert.equal(sniffed.mediaType, 'text/plain');
  // Extensionless config files: an INI file opens like a JSON array but is text; real JSON stays JSON.
  const ini = await parseDocument({
    path: '/repo/pylintrc',
    bytes: encode('[format]\nmax-line-length = 88\n\n[messages control]\ndisable = C0330\n'),
  });
  assert.deepEqual([ini.mediaType, ini.title], ['text/plain', 'pylintrc']);
  assert.ok(ini.blocks.some((block) => block.text.includes('max-line-length = 88')));
  assert.equal(
    (await parseDocument({ path: '/repo/settings', bytes: encode('{"name": "Ada", "year": 1843}') })).mediaType,
    'application/json',
  );
  assert.equal((await parseDocument({ path: '/repo/.flake8', bytes: encode('[flake8]\nmax-line-length = 88\n') })).mediaType, 'text/plain');
  const html = await parseDocument({ path: 'page', bytes: encode('<!doctype html><html><body><h1>Hi</h1><p>There</p></body></html>') });
  assert.equal(html.mediaType, 'text/html');
});

test('markdown keeps headings with levels; fenced code stays verbatim', async () => {
  const doc = await parseDocument({
    path: 'a.md',
    bytes: encode(
      '---\ntitle: Front\n---\n# Top\n\nIntro **bold** [link](http://x) &amp; more.\n\n## Sub\n\n```js\nconst a = 1 < 2;\n```\n\n| name | year |\n|---|---|\n| Ada | 1843 |\n',
    ),
  });
  assert.equal(doc.title, 'Front');
  const headings = doc.blocks.filter((b): b is Extract<Block, { type: 'heading' }> => b.type === 'heading');
  assert.deepEqual(
    headings.map((h) => [h.level, h.text]),
    [
      [1, 'Top'],
      [2, 'Sub'],
    ],
  );
  assert.ok(doc.blocks.some((b) => b.text === 'Intro bold link & more.'));
  assert.ok(doc.blocks.some((b) => b.type === 'code' && b.language === 'js' && b.text === 'const a = 1 < 2;'));
  assert.ok(doc.blocks.some((b) => b.text === 'name: Ada; year: 1843'));
});

test('html drops nav, script and style text and keeps headings', async () => {
  const page = `<html><head><title>T</title><style>.x{color:red}</style><script>var secret = 1;</script></head><body>
    <nav><a href="/">Home</a> <a href="/about">About us</a></nav>
    <main><h1>Main title</h1><p>First paragraph of the article.</p><h3>Part</h3><p>Second paragraph.</p>
    <table><tr><th>name</th><th>year</th></tr><tr><td>Ada</td><td>1843</td></tr></table></main>
    <footer>Copyright footer</footer><script>document.write('hidden')</script></body></html>`;
  const doc = await parseDocument({ path: 'p.html', bytes: encode(page) });
  const text = textOf(doc);
  for (const gone of ['About us', 'secret', 'color:red', 'Copyright', 'hidden'])
    assert.ok(!text.includes(gone), `${gone} should be dropped`);
  assert.deepEqual(
    doc.blocks.filter((b) => b.type === 'heading').map((b) => [(b as { level: number }).level, b.text]),
    [
      [1, 'Main title'],
      [3, 'Part'],
    ],
  );
  assert.ok(text.includes('name: Ada; year: 1843'));
  assert.equal(doc.title, 'T');
});

test('html: <pre><code> is a code block with the language its classes name; a plain <pre> stays text', async () => {
  const doc = await parseDocument({
    path: 'docs/routing.html',
    bytes: encode(
      [
        '<p>Add a route:</p>',
        '<pre><code class="language-python">Route("/users/{username}", user)\n</code></pre>',
        '<div class="highlight-console notranslate"><div class="highlight"><pre><span class="gp">$ </span>pip install x</pre></div></div>',
        '<pre>  preformatted\n  text</pre>',
      ].join(''),
    ),
  });
  assert.equal(doc.title, 'Routing', 'no <title> and no heading: the file name');
  assert.deepEqual(
    doc.blocks.map((b) => [b.type, b.type === 'code' ? (b.language ?? '') : '', b.text]),
    [
      ['text', '', 'Add a route:'],
      ['code', 'python', 'Route("/users/{username}", user)'],
      ['code', 'console', '$ pip install x'],
      ['text', '', '  preformatted\n  text'],
    ],
  );
});

test('html on real pages: scripts gone, readable text kept, UTF-16 page decoded', data, async () => {
  const scripts = await parseFile('unstructured/example-with-scripts.html');
  assert.ok(!/function\s*\(|var\s+\w+\s*=/.test(textOf(scripts)), 'no script source in text');
  assert.ok(textOf(scripts).includes('Belarusian'));
  const utf16 = await parseFile('unstructured/example-steelJIS-datasheet-utf-16.html');
  const utf8 = await parseFile('unstructured/example-steelJIS-datasheet.html');
  assert.equal(textOf(utf16), textOf(utf8));
  const cp1252 = await parseFile('unstructured/fake-html-cp1252.html');
  assert.ok(textOf(cp1252).includes('Die schöne Frau hat einen Kaffee mit Kuchen gegessen'));
  assert.ok(textOf(cp1252).includes('15,50 €'));
  const wiki = await parseFile('markitdown/test_wikipedia.html');
  assert.equal(wiki.title, 'Microsoft - Wikipedia');
  assert.ok(textOf(wiki).includes('Microsoft entered the operating system (OS) business in 1980'));
  const header = await parseFile('unstructured/fake-html-with-footer-and-header.html');
  assert.equal(squash(textOf(header)), 'My First Heading My first paragraph.');
});

test('pdf: text per page with page numbers; matches expected markitdown output', data, async () => {
  const doc = await parseFile('markitdown/test.pdf');
  assert.equal(doc.mediaType, 'application/pdf');
  assert.ok(doc.blocks.every((b) => b.page === 1));
  const text = squash(textOf(doc));
  for (const phrase of [
    'Large language models (LLMs) are becoming a crucial building block',
    'Our insight is to use multi-agent conversations to achieve it',
  ])
    assert.ok(text.includes(phrase), phrase);

  const multipage = await parseFile('markitdown/REPAIR-2022-INV-001_multipage.pdf');
  const pages = new Set(multipage.blocks.map((b) => b.page));
  assert.ok(pages.has(1) && pages.has(2), `pages seen: ${[...pages].join(',')}`);
  assert.ok(multipage.blocks.every((b) => typeof b.page === 'number'));
  const expected = readFileSync(join(DOCS_MIXED, 'markitdown/expected_outputs/REPAIR-2022-INV-001_multipage.md'), 'utf8');
  for (const phrase of ['ZAVA AUTO REPAIR', 'Gabriel Diaz', '1C4RJFBG2NC123456']) {
    assert.ok(expected.includes(phrase));
    assert.ok(textOf(multipage).includes(phrase), phrase);
  }
  const booking = await parseFile('markitdown/movie-theater-booking-2024.pdf');
  assert.ok(squash(textOf(booking)).length > 1000);
});

test('pdf: password-protected is encrypted-document; scanned with OCR off is skipped; garbage is parse-failed', data, async () => {
  const locked = await parseError('unstructured/pdf/password.pdf');
  assert.equal(locked.code, 'encrypted-document');
  assert.equal(locked.message, 'password-protected PDF');
  await assert.rejects(parseDocument({ ...docsMixedFile('markitdown/MEDRPT-2024-PAT-3847_medical_report_scan.pdf')!, ocr: false }), (e) => {
    assertDossierError(e, ['skipped']);
    assert.match((e as Error).message, /scanned PDF \(3 of 3 pages are images\), and OCR is off/);
    return true;
  });
  const copyProtected = await parseFile('unstructured/pdf/copy-protected.pdf');
  assert.ok(textOf(copyProtected).includes('LayoutParser'));
  await assert.rejects(parseDocument({ path: 'x.pdf', bytes: encode('%PDF-1.7\n1 0 obj << /Type /Catalog >> broken') }), (e) => {
    assertDossierError(e, ['parse-failed', 'empty-document']);
    return true;
  });
});

test('docx keeps headings; 872-page handbook in reasonable time', data, async () => {
  const doc = await parseFile('markitdown/test.docx');
  assert.ok(doc.blocks.some((b) => b.type === 'heading' && b.text === 'Abstract'));
  assert.ok(textOf(doc).includes('AutoGen is an open-source framework'));
  const started = Date.now();
  const big = await parseFile('unstructured/handbook-872p.docx');
  assert.ok(Date.now() - started < 20_000, 'handbook parses in under 20 s');
  assert.ok(big.blocks.length > 1000);
  assert.ok(big.blocks.some((b) => b.type === 'heading'));
});

test('docx/xlsx: malformed zip and encrypted Office files', async () => {
  const broken = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8]);
  await assert.rejects(parseDocument({ path: 'x.docx', bytes: broken }), (e) => {
    assertDossierError(e, ['parse-failed']);
    assert.match((e as Error).message, /^malformed docx: /);
    return true;
  });
  if (!hasDocsMixed) return;
  assert.equal((await parseError('unstructured/password_protected.xlsx')).code, 'encrypted-document');
});

test('csv/tsv: rows keep their header, quoted fields, encodings, delimiters', async () => {
  const doc = await parseDocument({
    path: 'p.csv',
    bytes: encode('name,year,note\nAda,1843,"first, program"\n"Grace ""Amazing"" Hopper",1952,"multi\nline"\n'),
  });
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['name: Ada; year: 1843; note: first, program', 'name: Grace "Amazing" Hopper; year: 1952; note: multi line'],
  );
  const tsv = await parseDocument({ path: 'p.tsv', bytes: encode('a\tb\n1\t2\n') });
  assert.equal(tsv.blocks[0].text, 'a: 1; b: 2');
  const semicolon = await parseDocument({ path: 'p.csv', bytes: encode('Year;Revenue\n2022;143,1\n2023;150,2\n') });
  assert.equal(semicolon.blocks[0].text, 'Year: 2022; Revenue: 143,1');
  // Big files: 50k rows stay quick.
  const rows = ['id,value', ...Array.from({ length: 50_000 }, (_, i) => `${i},v${i}`)].join('\n');
  const started = Date.now();
  const big = await parseDocument({ path: 'big.csv', bytes: encode(rows) });
  assert.equal(big.blocks.length, 50_000);
  assert.ok(Date.now() - started < 5000);
  if (!hasDocsMixed) return;
  const kanji = await parseFile('markitdown/test_mskanji.csv');
  assert.equal(kanji.blocks[0].text, '名前: 佐藤太郎; 年齢: 30; 住所: 東京');
  const utf16 = await parseFile('unstructured/stanley-cups-utf-16.csv');
  assert.ok(utf16.blocks.some((b) => b.text === 'Team: Blues; Location: STL; Stanley Cups: 1'));
});

test('json and jsonl: path: value lines, one block per record', async () => {
  const doc = await parseDocument({
    path: 'a.json',
    bytes: encode('{"title":"Doc","author":{"name":"Ada"},"tags":["x","y"],"items":[{"id":1},{"id":2}]}'),
  });
  assert.equal(doc.title, 'Doc');
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['title: Doc\nauthor.name: Ada\ntags: x, y', 'items[0].id: 1', 'items[1].id: 2'],
  );
  const lines = await parseDocument({ path: 'a.jsonl', bytes: encode('{"a":1}\n{"a":2}\nnot json\n') });
  assert.deepEqual(
    lines.blocks.map((b) => b.text),
    ['a: 1', 'a: 2'],
  );
  assert.equal(lines.metadata.invalidLines, 1);
  await assert.rejects(parseDocument({ path: 'bad.json', bytes: encode('{"a": 1,') }), (e) => {
    assertDossierError(e, ['parse-failed']);
    return true;
  });
});

test('pptx: text per slide with slide number as page; tables keep header', data, async () => {
  const doc = await parseFile('markitdown/test.pptx');
  assert.ok(doc.blocks.every((b) => typeof b.page === 'number'));
  assert.equal(new Set(doc.blocks.map((b) => b.page)).size, doc.metadata.slides);
  assert.ok(textOf(doc).includes('2cdda5c8-e50e-4db4-b5f0-9722a649f455'));
  const table = await parseFile('unstructured/fake-power-point-table.pptx');
  assert.ok(textOf(table).includes('Column 1: Red; Column 2: Green; Column 3: Blue'));
});

test('xlsx: sheet by sheet, rows keep header', data, async () => {
  const doc = await parseFile('markitdown/test.xlsx');
  assert.deepEqual(
    doc.blocks
      .filter((b) => b.type === 'heading')
      .map((b) => b.text)
      .slice(0, 1),
    ['Sheet1'],
  );
  assert.ok(doc.blocks.some((b) => b.text === 'Alpha: 89; Beta: 82; Gamma: 100; Delta: 12'));
  assert.ok(textOf(doc).includes('6ff4173b-42a5-4784-9b19-f49caff4d93d'));
  assert.equal((await parseError('unstructured/empty.xlsx')).code, 'empty-document');
});

test('eml: subject is title, headers are metadata, html bodies converted, encrypted refused', data, async () => {
  const doc = await parseFile('unstructured/eml/fake-email.eml');
  assert.equal(doc.title, 'Test Email');
  assert.equal(doc.metadata.subject, 'Test Email');
  assert.match(String(doc.metadata.from), /mrobinson@unstructured\.io/);
  assert.ok(doc.metadata.date);
  const htmlOnly = await parseFile('unstructured/eml/mime-html-only.eml');
  assert.ok(textOf(htmlOnly).includes('This is a text/html part.'));
  assert.ok(!textOf(htmlOnly).includes('<p>'));
  const utf16 = await parseFile('unstructured/eml/fake-email-utf-16-be.eml');
  assert.equal(utf16.title, 'Test Email');
  assert.equal((await parseError('unstructured/eml/fake-encrypted.eml')).code, 'encrypted-document');
  const invalidDate = await parseFile('unstructured/eml/test-invalid-date.eml');
  assert.equal(invalidDate.metadata.date, undefined);
});

test('epub: chapters in spine order, headings kept', data, async () => {
  const doc = await parseFile('markitdown/test.epub');
  assert.equal(doc.title, 'Test EPUB Document');
  const headings = doc.blocks.filter((b) => b.type === 'heading').map((b) => b.text);
  const first = headings.findIndex((h) => h.startsWith('Chapter 1'));
  const second = headings.findIndex((h) => h.startsWith('Chapter 2'));
  assert.ok(first >= 0 && second > first, `chapter order: ${headings.join(' | ')}`);
});

test('epub/odt/pptx built in memory: glue reads the parts it should', async () => {
  const epub = zipSync({
    mimetype: strToU8('application/epub+zip'),
    'META-INF/container.xml': strToU8('<container><rootfiles><rootfile full-path="OEBPS/book.opf"/></rootfiles></container>'),
    'OEBPS/book.opf': strToU8(
      '<package><metadata><dc:title>Made Up</dc:title></metadata><manifest><item id="b" href="text/b.xhtml" media-type="application/xhtml+xml"/><item id="a" href="text/a.xhtml" media-type="application/xhtml+xml"/></manifest><spine><itemref idref="a"/><itemref idref="b"/></spine></package>',
    ),
    'OEBPS/text/a.xhtml': strToU8('<html><body><h1>One</h1><p>Alpha text.</p></body></html>'),
    'OEBPS/text/b.xhtml': strToU8('<html><body><h1>Two</h1><p>Beta text.</p></body></html>'),
  });
  const doc = await parseDocument({ path: 'made.epub', bytes: epub });
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['One', 'Alpha text.', 'Two', 'Beta text.'],
  );
  const odt = zipSync({
    'content.xml': strToU8(
      '<office:document-content><office:body><office:text><text:h text:outline-level="2">Head</text:h><text:p>Body<text:s text:c="2"/>text</text:p></office:text></office:body></office:document-content>',
    ),
  });
  const odtDoc = await parseDocument({ path: 'made.odt', bytes: odt });
  assert.deepEqual(odtDoc.blocks, [
    { type: 'heading', level: 2, text: 'Head' },
    { type: 'text', text: 'Body text' },
  ]);
});

test('ipynb: markdown and code cells', data, async () => {
  const doc = await parseFile('markitdown/test_notebook.ipynb');
  assert.ok(doc.blocks.some((b) => b.type === 'heading' && b.text === 'Test Notebook'));
  assert.ok(doc.blocks.some((b) => b.type === 'code' && b.language === 'python' && b.text === 'print("markitdown")'));
});

test('unsupported: HEIC images, audio, archives, legacy Office', data, async () => {
  for (const file of [
    'unstructured/img/DA-1p.heic',
    'markitdown/test.mp3',
    'markitdown/test.wav',
    'markitdown/test_files.zip',
    'unstructured/fake.doc',
  ]) {
    const error = await parseError(file);
    assert.equal(error.code, 'unsupported-format', file);
  }
});

test('the lazy registry claims for each format exactly what its parser claims, in the same order', () => {
  assert.deepEqual(
    parsers.map((parser) => parser.name),
    Object.keys(FORMATS),
  );
  for (const parser of parsers) {
    const format = FORMATS[parser.name as keyof typeof FORMATS];
    assert.deepEqual([[...format.extensions], [...format.mediaTypes]], [[...parser.extensions], [...parser.mediaTypes]], parser.name);
  }
});
