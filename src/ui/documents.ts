// Collections, the documents table, and uploads with the ingestion job's progress.
import type { DocumentSummary, IngestJob, IngestProgress, IngestReport } from '../client/index.ts';
import { api, reportError } from './api.ts';
import { byId, el, showStatus } from './dom.ts';
import { openDocument } from './panel.ts';

/** The collection picker of the question form, and the names an upload may go to (those the caller may write). */
export async function loadCollections(): Promise<void> {
  const collections = await api.collections();
  const select = byId<HTMLSelectElement>('collection');
  const chosen = select.value;
  select.replaceChildren(
    el('option', { value: '', text: 'All collections' }),
    ...collections.map((c) => el('option', { value: c.name, text: `${c.name} (${c.documents})` })),
  );
  select.value = collections.some((c) => c.name === chosen) ? chosen : '';
  byId('collection-names').replaceChildren(...collections.filter((c) => c.role !== 'reader').map((c) => el('option', { value: c.name })));
}

export async function loadDocuments(): Promise<void> {
  const documents = await api.documents.list({ limit: 1000 });
  byId('document-rows').replaceChildren(
    ...documents.map((doc) =>
      el(
        'tr',
        { 'data-document-id': doc.id },
        el(
          'td',
          {},
          el(
            'button',
            { type: 'button', className: 'link', onclick: (event) => openDocument(doc.id, event.currentTarget as HTMLElement) },
            doc.title,
          ),
          el('div', { className: 'muted source', text: doc.source }),
        ),
        el('td', { text: doc.collection }),
        el('td', { text: doc.mediaType }),
        el('td', { className: 'num', text: doc.chunks }),
        el('td', { text: new Date(doc.updatedAt).toLocaleString() }),
        el(
          'td',
          {},
          el(
            'button',
            {
              type: 'button',
              className: 'danger',
              'aria-label': `Delete ${doc.title}`,
              onclick: () => deleteDocument(doc).catch(reportError),
            },
            'Delete',
          ),
        ),
      ),
    ),
  );
  byId('documents-empty').hidden = documents.length > 0;
}

async function deleteDocument(doc: DocumentSummary): Promise<void> {
  if (!confirm(`Delete “${doc.title}” with its passages from the index?`)) return;
  await api.documents.delete(doc.id);
  showStatus(`Deleted “${doc.title}”.`);
  await Promise.all([loadDocuments(), loadCollections()]);
}

/** The metadata field's JSON; the server says what is wrong with a value that is not an object. */
function metadataOf(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error('metadata is not a JSON object');
  }
}

/** Polls the job until it is neither queued nor running. */
async function pollJob(id: string, onProgress: (progress: IngestProgress | undefined) => void): Promise<IngestJob> {
  for (;;) {
    const job = await api.documents.job(id);
    onProgress(job.progress);
    if (job.status === 'finished' || job.status === 'failed') return job;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The refresh button and the upload form. */
export function setUpDocuments(): void {
  byId('refresh-documents').addEventListener('click', () => loadDocuments().catch(reportError));

  byId('upload-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const button = byId<HTMLButtonElement>('upload-button');
    const bar = byId<HTMLProgressElement>('upload-bar');
    const text = byId('upload-progress-text');
    button.disabled = true;
    byId('upload-progress').hidden = false;
    bar.removeAttribute('value'); // indeterminate until the job reports
    text.textContent = 'Uploading…';
    try {
      const files = data.getAll('file').filter((file): file is File => file instanceof File);
      const metadata = String(data.get('metadata') ?? '').trim();
      const job = await api.documents.upload(files, {
        collection: String(data.get('collection') ?? ''),
        ...(metadata ? { metadata: metadataOf(metadata) } : {}),
      });
      const finished = await pollJob(job.id, (progress) => {
        if (!progress?.total) return;
        bar.max = progress.total;
        bar.value = progress.done;
        text.textContent = `Ingesting: ${progress.done} of ${progress.total} files, ${progress.bytesDone} of ${progress.bytesTotal} bytes`;
      });
      bar.max = 1;
      bar.value = 1;
      if (finished.status === 'failed') throw new Error(`Ingestion failed: ${finished.error}`);
      const report: Partial<IngestReport> = finished.report ?? {};
      const failures = (report.failed ?? []).map((f) => `${f.path.split('/').pop()}: ${f.error}`);
      text.textContent = `Done: ${report.ingested ?? 0} ingested, ${report.skipped ?? 0} unchanged, ${failures.length} failed${failures.length ? ` (${failures.join('; ')})` : ''}.`;
      text.dataset.state = failures.length ? 'failed' : 'finished';
      byId<HTMLInputElement>('upload-file').value = '';
      await Promise.all([loadDocuments(), loadCollections()]);
    } catch (error) {
      text.textContent = (error as Error).message;
      text.dataset.state = 'failed';
      reportError(error);
    } finally {
      button.disabled = false;
    }
  });
}
