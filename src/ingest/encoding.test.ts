import assert from 'node:assert/strict';
import { test } from 'node:test';
import iconv from 'iconv-lite';
import { decodeText, detectEncoding, looksLikeText } from './encoding.ts';
import { docsMixedFile, SKIP_REASON } from './parsers/test-data.ts';

const sample = 'Grüße aus Köln — naïve café, 15,50 €.\nSecond line.';

function utf32(text: string, littleEndian: boolean, bom: boolean): Uint8Array {
  const points = [...(bom ? '\ufeff' : ''), ...text].map((c) => c.codePointAt(0)!);
  const out = new Uint8Array(points.length * 4);
  const view = new DataView(out.buffer);
  points.forEach((p, i) => view.setUint32(i * 4, p, littleEndian));
  return out;
}

test('UTF-8 with and without BOM', () => {
  assert.equal(decodeText(Buffer.from(sample, 'utf8')), sample);
  assert.equal(decodeText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(sample, 'utf8')])), sample);
});

test('UTF-16 LE/BE with BOM and without (NUL pattern)', () => {
  const le = Buffer.from(sample, 'utf16le');
  const be = Buffer.from(le).swap16();
  assert.equal(decodeText(Buffer.concat([Buffer.from([0xff, 0xfe]), le])), sample);
  assert.equal(decodeText(Buffer.concat([Buffer.from([0xfe, 0xff]), be])), sample);
  assert.deepEqual(detectEncoding(le), { encoding: 'utf-16le', bomLength: 0, source: 'nul-pattern' });
  assert.equal(decodeText(le), sample);
  assert.equal(detectEncoding(be).encoding, 'utf-16be');
  assert.equal(decodeText(be), sample);
});

test('UTF-32 LE/BE with BOM and without', () => {
  for (const littleEndian of [true, false]) {
    assert.equal(decodeText(utf32(sample, littleEndian, true)), sample);
    const bare = utf32(sample, littleEndian, false);
    assert.equal(detectEncoding(bare).encoding, littleEndian ? 'utf-32le' : 'utf-32be');
    assert.equal(decodeText(bare), sample);
  }
});

test('invalid UTF-8 falls back to detection: windows-1252, Shift_JIS, declared charset', () => {
  const latin = iconv.encode(
    'Die schöne Frau hat einen Kaffee mit Kuchen gegessen. Der Preis betrug 15,50 €. L’été était très chaud.',
    'windows-1252',
  );
  assert.equal(
    decodeText(latin),
    'Die schöne Frau hat einen Kaffee mit Kuchen gegessen. Der Preis betrug 15,50 €. L’été était très chaud.',
  );
  const sjis = iconv.encode('名前,年齢,住所\n佐藤太郎,30,東京\n', 'shift_jis');
  assert.equal(decodeText(sjis), '名前,年齢,住所\n佐藤太郎,30,東京\n');
  const cyrillic = iconv.encode('Привет, мир', 'koi8-r');
  assert.equal(decodeText(cyrillic, 'koi8-r'), 'Привет, мир');
});

test('looksLikeText tells prose from binary', () => {
  assert.equal(looksLikeText(sample), true);
  assert.equal(looksLikeText('\u0000\u0001\u0002abc\u0003\u0004'), false);
});

test('real files: UTF-16 and UTF-32 text from docs-mixed', (t) => {
  const files = [
    'unstructured/fake-text-utf-16.txt',
    'unstructured/fake-text-utf-16-le.txt',
    'unstructured/fake-text-utf-16-be.txt',
    'unstructured/fake-text-utf-32.txt',
  ];
  const loaded = files.map(docsMixedFile);
  if (loaded.some((f) => !f)) return t.skip(SKIP_REASON);
  for (const file of loaded) assert.match(decodeText(file!.bytes), /^This is a test document to use for unit tests\./, file!.path);
});
