/**
 * Offline OCR: tesseract.js with the English weights from the @tesseract.js-data/eng package, no
 * network. Used by the image parser and by the PDF parser for pages without a text layer.
 */
export {
  closeOcr,
  MIN_IMAGE_CONFIDENCE,
  ocrLimits,
  ocrTimeoutError,
  OCR_UPSCALE_BELOW,
  ocrData,
  OCR_LANGUAGE,
  OCR_MAX_PAGES,
  OCR_RENDER_DPI,
  OCR_TIMEOUT_MS,
  recognise,
  workerOptions,
  type OcrResult,
  type RecogniseOptions,
} from './engine.ts';
export { IMAGE_MEDIA_TYPES, imageFormat, type ImageFormat } from './formats.ts';
export { HEADING_HEIGHT_RATIO, joinHyphenated, MIN_LINE_CONFIDENCE, paragraphsOf, type OcrParagraph } from './layout.ts';
