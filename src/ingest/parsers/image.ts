import { DossierError } from '../../errors/index.ts';
import {
  IMAGE_MEDIA_TYPES,
  imageFormat,
  MIN_IMAGE_CONFIDENCE,
  ocrLimits,
  recognise,
  type OcrParagraph,
  type OcrResult,
} from '../ocr/index.ts';
import type { Block, Parser } from '../types.ts';
import { fileStem } from './util.ts';

/**
 * OCR paragraphs as blocks: a paragraph set in large type is a heading, the others keep their
 * lines. An image read with too little confidence gives none (its "text" is guesswork).
 */
export function ocrBlocks({ paragraphs, confidence }: Pick<OcrResult, 'paragraphs' | 'confidence'>, page?: number): Block[] {
  if (confidence < MIN_IMAGE_CONFIDENCE) return [];
  return paragraphs.map((paragraph: OcrParagraph): Block => {
    const block: Block = paragraph.heading
      ? { type: 'heading', level: paragraph.heading, text: paragraph.lines.join(' ') }
      : { type: 'text', text: paragraph.lines.join('\n') };
    if (page !== undefined) block.page = page;
    return block;
  });
}

/**
 * Images (png, jpeg, tiff, webp, bmp, gif) become documents of their OCR text, titled by the file
 * name. An image without text, or any image when OCR is off, is 'skipped' with the reason — not a
 * failure; bytes that are not an image OCR can decode are 'parse-failed'.
 */
export const imageParser: Parser = {
  name: 'image',
  extensions: ['png', 'jpg', 'jpeg', 'jpe', 'tif', 'tiff', 'webp', 'bmp', 'gif'],
  mediaTypes: Object.values(IMAGE_MEDIA_TYPES),
  async parse({ path, bytes, ocr }) {
    if (bytes.byteLength === 0) throw new DossierError('empty-document', 'empty image file');
    const format = imageFormat(bytes);
    if (!format) throw new DossierError('parse-failed', 'malformed image: not a PNG, JPEG, TIFF, WebP, BMP or GIF file');
    if (ocr === false) throw new DossierError('skipped', 'image, and OCR is off');
    const result = await recognise(bytes, { timeoutMs: ocrLimits.timeoutMs });
    const blocks = ocrBlocks(result);
    if (blocks.length === 0) {
      throw new DossierError(
        'skipped',
        result.text ? `no legible text found in the image (OCR confidence ${result.confidence})` : 'no text found in the image (OCR)',
      );
    }
    return {
      title: fileStem(path),
      mediaType: IMAGE_MEDIA_TYPES[format],
      blocks,
      metadata: { ocr: true, ocrConfidence: result.confidence },
    };
  },
};
