/**
 * Text decoding for files whose encoding nobody told us. Order of evidence, strongest first:
 * a byte-order mark, the NUL-byte pattern of BOM-less UTF-16/32, strict UTF-8 validity, a charset
 * the container declared (HTML meta, MIME header), statistical detection (chardet), windows-1252.
 */
import chardet from 'chardet';
import iconv from 'iconv-lite';

export interface DetectedEncoding {
  /** Lower-case encoding label understood by iconv-lite / TextDecoder, e.g. "utf-8", "utf-16le". */
  encoding: string;
  /** Bytes of byte-order mark to skip. */
  bomLength: number;
  /** Which evidence decided: helps tests and debugging. */
  source: 'bom' | 'nul-pattern' | 'utf8-valid' | 'declared' | 'detected' | 'fallback';
}

/** Enough bytes for the statistics to settle, few enough to stay cheap on huge files. */
const SAMPLE_BYTES = 64 * 1024;

function bomOf(bytes: Uint8Array): DetectedEncoding | undefined {
  const [a, b, c, d] = bytes;
  // UTF-32LE must be tested before UTF-16LE: its BOM starts with the UTF-16LE BOM.
  if (a === 0xff && b === 0xfe && c === 0 && d === 0) return { encoding: 'utf-32le', bomLength: 4, source: 'bom' };
  if (a === 0 && b === 0 && c === 0xfe && d === 0xff) return { encoding: 'utf-32be', bomLength: 4, source: 'bom' };
  if (a === 0xef && b === 0xbb && c === 0xbf) return { encoding: 'utf-8', bomLength: 3, source: 'bom' };
  if (a === 0xff && b === 0xfe) return { encoding: 'utf-16le', bomLength: 2, source: 'bom' };
  if (a === 0xfe && b === 0xff) return { encoding: 'utf-16be', bomLength: 2, source: 'bom' };
  return undefined;
}

/**
 * BOM-less UTF-16/32 of mostly Latin text shows NULs at fixed positions within each code unit;
 * chardet does not look for that, so we do. Needs a few code units to be meaningful.
 */
function nulPatternOf(bytes: Uint8Array): DetectedEncoding | undefined {
  const n = Math.min(bytes.length, SAMPLE_BYTES);
  if (n < 4) return undefined;
  const zeros = [0, 0, 0, 0];
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < n; i++) {
    counts[i % 4]++;
    if (bytes[i] === 0) zeros[i % 4]++;
  }
  const ratio = zeros.map((z, i) => (counts[i] === 0 ? 0 : z / counts[i]));
  if (ratio.every((r) => r === 0)) return undefined;
  if (n % 4 === 0 || n === SAMPLE_BYTES) {
    if (ratio[0] < 0.1 && ratio[1] > 0.9 && ratio[2] > 0.9 && ratio[3] > 0.9)
      return { encoding: 'utf-32le', bomLength: 0, source: 'nul-pattern' };
    if (ratio[0] > 0.9 && ratio[1] > 0.9 && ratio[2] > 0.9 && ratio[3] < 0.1)
      return { encoding: 'utf-32be', bomLength: 0, source: 'nul-pattern' };
  }
  const even = (zeros[0] + zeros[2]) / Math.max(1, counts[0] + counts[2]);
  const odd = (zeros[1] + zeros[3]) / Math.max(1, counts[1] + counts[3]);
  if (odd > 0.5 && even < 0.05) return { encoding: 'utf-16le', bomLength: 0, source: 'nul-pattern' };
  if (even > 0.5 && odd < 0.05) return { encoding: 'utf-16be', bomLength: 0, source: 'nul-pattern' };
  return undefined;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

function normalizeLabel(label: string | undefined | null): string | undefined {
  if (!label) return undefined;
  const clean = label
    .trim()
    .toLowerCase()
    .replace(/^["']|["']$/g, '');
  // iso-8859-8-i is the logical-order alias; iconv-lite only knows the base name.
  // Latin-1 and ASCII labels mean windows-1252 in practice (the WHATWG Encoding Standard agrees).
  const alias = clean === 'iso-8859-8-i' ? 'iso-8859-8' : /^(iso-8859-1|latin-?1|us-ascii|ascii)$/.test(clean) ? 'windows-1252' : clean;
  return iconv.encodingExists(alias) ? alias : undefined;
}

/** Replacement and control characters in a decoding: bytes the encoding could not explain. */
function badChars(text: string): number {
  let bad = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0xfffd || (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) || (c >= 0x80 && c < 0xa0)) bad++;
  }
  return bad;
}

/**
 * chardet ranks candidates by byte statistics, which on short files favours single-byte code pages
 * (a 100-byte Shift_JIS CSV comes out "windows-1252"). Among its candidates, the one that decodes
 * the sample with the fewest unexplained bytes wins; ties keep chardet's order.
 */
function bestCandidate(sample: Uint8Array): string | undefined {
  const seen = new Set<string>();
  let best: { encoding: string; bad: number } | undefined;
  for (const match of chardet.analyse(sample)) {
    const encoding = normalizeLabel(match.name);
    // chardet answers UTF-8 for "almost UTF-8" text; the strict check already said no.
    if (!encoding || encoding === 'utf-8' || encoding.startsWith('utf-') || seen.has(encoding)) continue;
    seen.add(encoding);
    const bad = badChars(iconv.decode(Buffer.from(sample.buffer, sample.byteOffset, sample.byteLength), encoding));
    if (!best || bad < best.bad) best = { encoding, bad };
    if (bad === 0) break;
  }
  return best?.encoding;
}

/** Decides how `bytes` are encoded. `declared` is a charset named by the container, if any. */
export function detectEncoding(bytes: Uint8Array, declared?: string): DetectedEncoding {
  const bom = bomOf(bytes);
  if (bom) return bom;
  const nul = nulPatternOf(bytes);
  if (nul) return nul;
  if (isValidUtf8(bytes)) return { encoding: 'utf-8', bomLength: 0, source: 'utf8-valid' };
  const fromContainer = normalizeLabel(declared);
  // A declared UTF-8 that is not valid UTF-8 is a lie; look at the bytes instead.
  if (fromContainer && fromContainer !== 'utf-8' && fromContainer !== 'utf8') {
    return { encoding: fromContainer, bomLength: 0, source: 'declared' };
  }
  const guess = bestCandidate(bytes.subarray(0, SAMPLE_BYTES));
  if (guess) return { encoding: guess, bomLength: 0, source: 'detected' };
  return { encoding: 'windows-1252', bomLength: 0, source: 'fallback' };
}

/** Decodes bytes of unknown encoding to a string without BOM; never throws. */
export function decodeText(bytes: Uint8Array, declared?: string): string {
  const { encoding, bomLength } = detectEncoding(bytes, declared);
  const body = bytes.subarray(bomLength);
  if (encoding === 'utf-8') return new TextDecoder('utf-8').decode(body);
  let text = iconv.decode(Buffer.from(body.buffer, body.byteOffset, body.byteLength), encoding);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

/**
 * True when decoded text looks like prose rather than binary noise: few control characters and
 * replacement characters. Used to turn garbage input into a clear error instead of junk chunks.
 */
export function looksLikeText(text: string): boolean {
  const sample = text.length > SAMPLE_BYTES ? text.slice(0, SAMPLE_BYTES) : text;
  if (sample.length === 0) return true;
  let bad = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d && c !== 0x0c) || c === 0xfffd || c === 0x7f) bad++;
  }
  return bad / sample.length < 0.05;
}
