// The side panel: a cited chunk with its document, or a document with its chunks.
import type { Citation } from '../client/index.ts';
import { api } from './api.ts';
import { byId, el } from './dom.ts';
import { passageNodes } from './rich-text.ts';

let panelOpener: HTMLElement | null = null;

export function openPanel(title: string, body: Node[], opener?: HTMLElement | null): void {
  panelOpener = opener ?? null;
  byId('panel-title').textContent = title;
  byId('panel-body').replaceChildren(...body);
  byId('panel').hidden = false;
  byId('panel').focus();
}

export function closePanel(): void {
  if (byId('panel').hidden) return;
  byId('panel').hidden = true;
  panelOpener?.focus();
  panelOpener = null;
}

/** The close button and Escape close the panel, and focus goes back to what opened it. */
export function setUpPanel(): void {
  byId('panel-close').addEventListener('click', closePanel);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !byId('panel').hidden) closePanel();
  });
}

function details(rows: Array<[string, string | undefined]>): HTMLDListElement {
  const list = el('dl', { className: 'facts' });
  for (const [name, value] of rows)
    if (value !== undefined && value !== '') list.append(el('dt', { text: name }), el('dd', { text: value }));
  return list;
}

export function openCitation(citation: Citation, opener: HTMLElement): void {
  const heading = citation.headingPath?.length ? citation.headingPath.join(' › ') : '—';
  const docBox = el('div', { className: 'doc-context' }, el('p', { className: 'muted', text: 'Loading the document…' }));
  openPanel(
    citation.title,
    [
      el('p', { className: 'cite-id', text: `Evidence ${citation.id}` }),
      details([
        ['Source', citation.source],
        ['Heading path', heading],
        ['Page', citation.page !== undefined && citation.page !== null ? String(citation.page) : '—'],
        ['Characters', `${citation.charStart}–${citation.charEnd}`],
      ]),
      el('h3', { text: 'Cited passage' }),
      el('blockquote', { className: 'chunk-text', 'data-chunk-id': citation.chunkId }, ...passageNodes(citation.text)),
      docBox,
    ],
    opener,
  );
  loadDocumentContext(citation, docBox).catch((error: Error) =>
    docBox.replaceChildren(el('p', { className: 'error', text: `The document could not be loaded: ${error.message}` })),
  );
}

/** The document's own facts and the passages around the cited one. */
async function loadDocumentContext(citation: Citation, box: HTMLElement): Promise<void> {
  const [doc, chunks] = await Promise.all([api.documents.get(citation.documentId), api.documents.chunks(citation.documentId)]);
  const at = chunks.findIndex((chunk) => chunk.id === citation.chunkId);
  const around = el('div', { className: 'around' });
  for (const chunk of [chunks[at - 1], chunks[at + 1]]) {
    if (!chunk) continue;
    around.append(
      el('p', { className: 'muted', text: chunk.ordinal < chunks[at].ordinal ? 'Before' : 'After' }),
      el('blockquote', { className: 'chunk-text dim' }, ...passageNodes(chunk.text)),
    );
  }
  box.replaceChildren(
    el('h3', { text: 'Document' }),
    details([
      ['Collection', doc.collection],
      ['Type', doc.mediaType],
      ['Size', doc.bytes !== undefined ? `${doc.bytes} bytes` : undefined],
      ['Chunks', at >= 0 ? `passage ${at + 1} of ${chunks.length}` : String(chunks.length)],
      ['Updated', doc.updatedAt ? new Date(doc.updatedAt).toLocaleString() : undefined],
    ]),
    ...(doc.description ? [el('p', { className: 'description', text: doc.description })] : []),
    ...(around.childElementCount ? [el('details', {}, el('summary', { text: 'Surrounding passages' }), around)] : []),
  );
}

export async function openDocument(id: number, opener: HTMLElement): Promise<void> {
  openPanel('Loading…', [], opener);
  try {
    const [doc, chunks] = await Promise.all([api.documents.get(id), api.documents.chunks(id)]);
    const list = el('ol', { className: 'chunk-list' });
    for (const chunk of chunks) {
      list.append(
        el(
          'li',
          {},
          el('p', {
            className: 'muted',
            text:
              [chunk.headingPath?.join(' › '), chunk.page ? `page ${chunk.page}` : ''].filter(Boolean).join(' · ') ||
              `passage ${chunk.ordinal + 1}`,
          }),
          el('blockquote', { className: 'chunk-text' }, ...passageNodes(chunk.text)),
        ),
      );
    }
    openPanel(
      doc.title,
      [
        details([
          ['Source', doc.source],
          ['Collection', doc.collection],
          ['Type', doc.mediaType],
          ['Size', `${doc.bytes} bytes`],
        ]),
        ...(doc.description ? [el('p', { className: 'description', text: doc.description })] : []),
        el('h3', { text: `${chunks.length} passages` }),
        list,
      ],
      opener,
    );
  } catch (error) {
    openPanel('Document', [el('p', { className: 'error', text: (error as Error).message })], opener);
  }
}
