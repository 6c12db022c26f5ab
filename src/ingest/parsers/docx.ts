import mammoth from 'mammoth';
import { DossierError, oneLine } from '../../errors/index.ts';
import type { Parser } from '../types.ts';
import { htmlStringToBlocks } from './html-blocks.ts';
import { checkOoxmlContainer, entryText, fileStem, usefulTitle, firstHeading, timeoutFor, unzipEntries, withTimeout } from './util.ts';

/** Word's own title styles are not headings to mammoth by default; make them so. */
const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

/** Images are dropped at conversion time: base64-encoding them is most of the cost on big files. */
const dropImages = mammoth.images.imgElement(async () => ({ src: '' }));

/** dc:title / dc:creator from docProps/core.xml (also used by pptx and xlsx). */
export function coreProperties(bytes: Uint8Array): { title?: string; author?: string } {
  try {
    const xml = entryText(
      unzipEntries(bytes, 'office file', (name) => name === 'docProps/core.xml'),
      'docProps/core.xml',
    );
    if (!xml) return {};
    const pick = (tag: string) => {
      const value = new RegExp(`<${tag}[^>]*>([^<]*)</${tag}>`).exec(xml)?.[1]?.trim();
      return value
        ? value
            .replace(/&amp;/g, '&')
            .replace(/&lt;/g, '<')
            .replace(/&gt;/g, '>')
            .replace(/&quot;/g, '"')
            .replace(/&apos;/g, "'")
        : undefined;
    };
    return { title: pick('dc:title'), author: pick('dc:creator') };
  } catch {
    return {}; // properties are a nicety; a broken entry must not fail the document
  }
}

function mammothError(error: unknown): DossierError {
  const message = oneLine(error);
  if (/central directory|is this a zip file|end of data|corrupted zip/i.test(message)) {
    return new DossierError('parse-failed', 'malformed docx: zip central directory not found', { cause: error });
  }
  if (/main document part|word\/document\.xml/i.test(message)) {
    return new DossierError('parse-failed', 'malformed docx: no word/document.xml part', { cause: error });
  }
  return new DossierError('parse-failed', `malformed docx: ${message.slice(0, 200)}`, { cause: error });
}

export const docxParser: Parser = {
  name: 'docx',
  extensions: ['docx', 'docm', 'dotx'],
  mediaTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  async parse({ path, bytes }) {
    checkOoxmlContainer(bytes, 'docx');
    let html: string;
    try {
      const result = await withTimeout(
        mammoth.convertToHtml(
          { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
          { styleMap: STYLE_MAP, convertImage: dropImages },
        ),
        timeoutFor(bytes),
        'docx conversion',
      );
      html = result.value;
    } catch (error) {
      if (DossierError.isInstance(error)) throw error;
      throw mammothError(error);
    }
    const blocks = htmlStringToBlocks(html);
    if (blocks.length === 0) throw new DossierError('empty-document', 'no text in docx');
    const core = coreProperties(bytes);
    const metadata: Record<string, unknown> = {};
    if (core.author) metadata.author = core.author;
    return {
      title: usefulTitle(core.title) || firstHeading(blocks) || fileStem(path),
      mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      blocks,
      metadata,
    };
  },
};
