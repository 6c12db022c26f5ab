/** The image formats tesseract.js decodes (Leptonica inside its wasm core; BMP through bmp-js), by magic number. */
export type ImageFormat = 'png' | 'jpeg' | 'gif' | 'tiff' | 'webp' | 'bmp';

export const IMAGE_MEDIA_TYPES: Record<ImageFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  tiff: 'image/tiff',
  webp: 'image/webp',
  bmp: 'image/bmp',
};

const BMP_HEADER_SIZES = new Set([12, 16, 40, 52, 56, 64, 108, 124]);

function startsWith(bytes: Uint8Array, text: string, offset = 0): boolean {
  if (bytes.length < offset + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[offset + i] !== text.charCodeAt(i)) return false;
  return true;
}

/** The format the bytes are in, or undefined when they are not an image OCR can read. */
export function imageFormat(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, '\x89PNG\r\n\x1a\n')) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (startsWith(bytes, 'GIF87a') || startsWith(bytes, 'GIF89a')) return 'gif';
  if (startsWith(bytes, 'II*\0') || startsWith(bytes, 'MM\0*')) return 'tiff';
  if (startsWith(bytes, 'RIFF') && startsWith(bytes, 'WEBP', 8)) return 'webp';
  // "BM", then a DIB header whose size (a little-endian 32-bit number at 14) is one of the known ones.
  if (
    startsWith(bytes, 'BM') &&
    bytes.length > 26 &&
    BMP_HEADER_SIZES.has(bytes[14]) &&
    bytes[15] === 0 &&
    bytes[16] === 0 &&
    bytes[17] === 0
  )
    return 'bmp';
  return undefined;
}

/**
 * Width and height from the file header, read in plain JavaScript (never by a native decoder: a
 * damaged image must not be able to crash the process). Undefined when the header does not say.
 */
export function imageSize(bytes: Uint8Array, format: ImageFormat): { width: number; height: number } | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const fits = (offset: number, length: number) => offset >= 0 && offset + length <= bytes.byteLength;
  const size = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : undefined);
  switch (format) {
    case 'png':
      return fits(16, 8) ? size(view.getUint32(16), view.getUint32(20)) : undefined;
    case 'gif':
      return fits(6, 4) ? size(view.getUint16(6, true), view.getUint16(8, true)) : undefined;
    case 'bmp':
      if (!fits(14, 12)) return undefined;
      return view.getUint32(14, true) === 12
        ? size(view.getUint16(18, true), view.getUint16(20, true))
        : size(view.getInt32(18, true), Math.abs(view.getInt32(22, true)));
    case 'webp': {
      const chunk = String.fromCharCode(...bytes.subarray(12, 16));
      if (chunk === 'VP8 ' && fits(26, 4)) return size(view.getUint16(26, true) & 0x3fff, view.getUint16(28, true) & 0x3fff);
      if (chunk === 'VP8L' && fits(21, 4)) {
        const bits = view.getUint32(21, true);
        return size((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1);
      }
      if (chunk === 'VP8X' && fits(24, 6))
        return size(1 + (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16)), 1 + (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16)));
      return undefined;
    }
    case 'jpeg': {
      // Walk the markers to the first start-of-frame (SOF0–SOF15 except DHT, JPG and DAC).
      let offset = 2;
      while (fits(offset, 4)) {
        if (bytes[offset] !== 0xff) return undefined;
        const marker = bytes[offset + 1];
        if (marker === 0xff) {
          offset++;
          continue;
        }
        const length = view.getUint16(offset + 2);
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          return fits(offset + 5, 4) ? size(view.getUint16(offset + 7), view.getUint16(offset + 5)) : undefined;
        }
        if (length < 2) return undefined;
        offset += 2 + length;
      }
      return undefined;
    }
    case 'tiff': {
      const little = bytes[0] === 0x49;
      if (!fits(4, 4)) return undefined;
      const ifd = view.getUint32(4, little);
      if (!fits(ifd, 2)) return undefined;
      let width = 0;
      let height = 0;
      const entries = view.getUint16(ifd, little);
      for (let i = 0; i < entries; i++) {
        const entry = ifd + 2 + i * 12;
        if (!fits(entry, 12)) break;
        const tag = view.getUint16(entry, little);
        const type = view.getUint16(entry + 2, little);
        const value = type === 3 ? view.getUint16(entry + 8, little) : view.getUint32(entry + 8, little);
        if (tag === 256) width = value;
        if (tag === 257) height = value;
      }
      return size(width, height);
    }
  }
}
