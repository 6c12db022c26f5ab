// The Dossier web page, built on `dossier/client`: this module wires the page up and starts it.
import { askForKey, forgetKey, isUnauthorized, rememberKey, reportError, storedKey } from './api.ts';
import { setUpCitationMarkers } from './answer.ts';
import { loadConversations, setUpConversations } from './conversations.ts';
import { loadCollections, loadDocuments, setUpDocuments } from './documents.ts';
import { byId, showStatus } from './dom.ts';
import { loadGraph, setUpGraph } from './graph.ts';
import { closePanel, setUpPanel } from './panel.ts';

/** The API key form (only when the server runs with --auth keys). */
function setUpKeyForm(): void {
  byId('key-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = byId<HTMLInputElement>('api-key');
    rememberKey(input.value.trim());
    input.value = '';
    try {
      await loadCollections();
      byId('key-form-section').hidden = true;
      byId('key-status').hidden = false;
      showStatus('Signed in with the API key.');
      await Promise.all([loadConversations(), loadDocuments()]);
    } catch (error) {
      // A key the server refused is not kept (the form shows why).
      if (isUnauthorized(error)) forgetKey();
      reportError(error);
    }
  });

  byId('forget-key').addEventListener('click', () => {
    forgetKey();
    byId('key-status').hidden = true;
    askForKey('');
  });
}

/** Ask, Documents and Graph (arrow keys move between tabs, as in the ARIA tabs pattern). */
function setUpTabs(): void {
  const tabs = [...document.querySelectorAll<HTMLElement>('[role="tab"]')];
  const select = (tab: HTMLElement) => {
    // What the panel shows belongs to the tab it was opened from.
    if (tab.getAttribute('aria-selected') !== 'true') closePanel();
    for (const other of tabs) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      byId(other.getAttribute('aria-controls')!).hidden = !selected;
    }
    if (tab.id === 'tab-documents') loadDocuments().catch(reportError);
    if (tab.id === 'tab-graph') loadGraph().catch(reportError);
  };
  for (const tab of tabs) {
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (event) => {
      const at = tabs.indexOf(tab);
      const next =
        event.key === 'ArrowRight'
          ? tabs[(at + 1) % tabs.length]
          : event.key === 'ArrowLeft'
            ? tabs[(at - 1 + tabs.length) % tabs.length]
            : undefined;
      if (!next) return;
      event.preventDefault();
      next.focus();
      select(next);
    });
  }
}

/** A 401 here means the server wants a key (the form appears); otherwise everything loads. */
async function start(): Promise<void> {
  try {
    await loadCollections();
    byId('key-status').hidden = !storedKey();
    await Promise.all([loadConversations(), loadDocuments()]);
  } catch (error) {
    reportError(error);
  }
  document.body.dataset.ready = 'true';
}

setUpKeyForm();
setUpTabs();
setUpCitationMarkers();
setUpPanel();
setUpConversations();
setUpDocuments();
setUpGraph();
void start();
