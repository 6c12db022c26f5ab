import type { Unzipped } from 'fflate';
import { DossierError } from '../../errors/index.ts';
import type { Block, Parser } from '../types.ts';
import { coreProperties } from './docx.ts';
import { checkOoxmlContainer, entryText, fileStem, usefulTitle, resolveZipPath, unzipEntries } from './util.ts';
import { elementsAttributes, relationships, saxParse } from './xml-sax.ts';

const TITLE_PLACEHOLDERS = new Set(['title', 'ctrTitle']);

/**
 * One slide's DrawingML → blocks: a title placeholder becomes a heading, other shapes become text
 * blocks, tables become "header: value" rows like CSV. Group shapes nest <p:sp>, which just works.
 */
export function slideBlocks(xml: string, page: number): Block[] {
  const blocks: Block[] = [];
  let shapeDepth = 0;
  let isTitle = false;
  let paragraphs: string[] = [];
  let paragraph: string | undefined;
  let inText = false;
  let table: string[][] | undefined;
  let row: string[] | undefined;
  let cell: string[] | undefined;

  const emitShape = () => {
    const text = paragraphs
      .map((p) => p.trim())
      .filter(Boolean)
      .join('\n');
    paragraphs = [];
    if (!text) return;
    if (isTitle) blocks.push({ type: 'heading', level: 1, text: text.replace(/\s+/g, ' '), page });
    else blocks.push({ type: 'text', text, page });
  };

  saxParse(xml, {
    onopentag(name, attribs) {
      switch (name) {
        case 'p:sp':
          if (shapeDepth === 0) isTitle = false;
          shapeDepth++;
          break;
        case 'p:ph':
          if (TITLE_PLACEHOLDERS.has(attribs.type ?? '')) isTitle = true;
          break;
        case 'a:p':
          paragraph = '';
          break;
        case 'a:t':
          inText = true;
          break;
        case 'a:br':
          if (paragraph !== undefined) paragraph += '\n';
          break;
        case 'a:tbl':
          table = [];
          break;
        case 'a:tr':
          row = [];
          break;
        case 'a:tc':
          cell = [];
          break;
      }
    },
    ontext(data) {
      if (inText && paragraph !== undefined) paragraph += data;
    },
    onclosetag(name) {
      switch (name) {
        case 'a:t':
          inText = false;
          break;
        case 'a:p':
          if (paragraph !== undefined) {
            if (cell) cell.push(paragraph);
            else paragraphs.push(paragraph);
          }
          paragraph = undefined;
          break;
        case 'a:tc':
          if (row && cell) row.push(cell.join(' ').replace(/\s+/g, ' ').trim());
          cell = undefined;
          break;
        case 'a:tr':
          if (table && row) table.push(row);
          row = undefined;
          break;
        case 'a:tbl':
          if (table) {
            const text = tableText(table);
            if (text) blocks.push({ type: 'text', text, page });
          }
          table = undefined;
          break;
        case 'p:sp':
          shapeDepth--;
          if (shapeDepth === 0) emitShape();
          break;
      }
    },
  });
  emitShape(); // text outside shapes (rare) is not lost
  return blocks;
}

/** First row is the header (slides rarely mark it), rows read "header: value; …". */
export function tableText(rows: string[][]): string {
  const filled = rows.filter((r) => r.some((c) => c));
  if (filled.length === 0) return '';
  if (filled.length === 1) return filled[0].filter(Boolean).join(' | ');
  const [header, ...body] = filled;
  return body
    .map((r) =>
      r
        .map((c, i) => (c ? (header[i] ? `${header[i]}: ${c}` : c) : ''))
        .filter(Boolean)
        .join('; '),
    )
    .filter(Boolean)
    .join('\n');
}

/** Slide part names in presentation order (sldIdLst), falling back to file-name order. */
function slideOrder(files: Unzipped): string[] {
  const presentation = entryText(files, 'ppt/presentation.xml');
  const rels = relationships(entryText(files, 'ppt/_rels/presentation.xml.rels'));
  const ordered: string[] = [];
  if (presentation) {
    for (const slide of elementsAttributes(presentation, 'p:sldId')) {
      const target = rels.get(slide['r:id'] ?? '');
      if (target) {
        const part = resolveZipPath('ppt/presentation.xml', target);
        if (files[part]) ordered.push(part);
      }
    }
  }
  if (ordered.length > 0) return ordered;
  const number = (name: string) => Number(/(\d+)\.xml$/.exec(name)?.[1] ?? 0);
  return Object.keys(files)
    .filter((name) => /^ppt\/slides\/slide\d+\.xml$/.test(name))
    .sort((a, b) => number(a) - number(b));
}

/** Speaker notes of a slide, found through the slide's relationships. */
function notesOf(files: Unzipped, slidePart: string): string {
  const relsPart = slidePart.replace(/([^/]+)$/, '_rels/$1.rels');
  for (const target of relationships(entryText(files, relsPart)).values()) {
    if (!/notesSlide/.test(target)) continue;
    const xml = entryText(files, resolveZipPath(slidePart, target));
    if (!xml) continue;
    // Notes pages repeat the slide image and number placeholders; only body text is notes.
    return slideBlocks(xml, 0)
      .filter((b) => b.type === 'text' && !/^\d+$/.test(b.text))
      .map((b) => b.text)
      .join('\n');
  }
  return '';
}

export const pptxParser: Parser = {
  name: 'pptx',
  extensions: ['pptx', 'pptm', 'ppsx', 'potx'],
  mediaTypes: ['application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  async parse({ path, bytes }) {
    checkOoxmlContainer(bytes, 'pptx');
    const files = unzipEntries(bytes, 'pptx', (name) =>
      /^ppt\/(presentation\.xml|_rels\/presentation\.xml\.rels|slides\/|notesSlides\/notesSlide\d+\.xml$)/.test(name),
    );
    if (!files['ppt/presentation.xml'] && !Object.keys(files).some((n) => n.startsWith('ppt/slides/'))) {
      throw new DossierError('parse-failed', 'malformed pptx: no ppt/presentation.xml part');
    }
    const slides = slideOrder(files);
    const blocks: Block[] = [];
    slides.forEach((part, index) => {
      const xml = entryText(files, part);
      if (!xml) return;
      const page = index + 1;
      blocks.push(...slideBlocks(xml, page));
      const notes = notesOf(files, part);
      if (notes) blocks.push({ type: 'text', text: `Notes: ${notes}`, page });
    });
    if (blocks.length === 0) throw new DossierError('empty-document', `no text on ${slides.length} slides`);
    const core = coreProperties(bytes);
    const firstTitle = blocks.find((b) => b.type === 'heading')?.text;
    const metadata: Record<string, unknown> = { slides: slides.length };
    if (core.author) metadata.author = core.author;
    return {
      title: usefulTitle(core.title) || firstTitle || fileStem(path),
      mediaType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
      blocks,
      metadata,
    };
  },
};
