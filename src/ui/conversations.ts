// Conversations, the thread, and asking: a question streams its run into the thread and the panels.
import { api, reportError } from './api.ts';
import { citationsOf, renderAnswer } from './answer.ts';
import { byId, el, showStatus, truncate } from './dom.ts';
import { resetRunPanels, RunView } from './run-view.ts';

/** The conversation the next question goes to; none: the question starts one. */
let openConversation: { id: string; title: string } | null = null;
/** The stream being read, stopped when another conversation or question takes its place. */
let following: AbortController | null = null;

export async function loadConversations(): Promise<void> {
  const conversations = await api.conversations.list();
  byId('conversation-list').replaceChildren(
    ...conversations.map((conversation) =>
      el(
        'li',
        {},
        el(
          'button',
          {
            type: 'button',
            className: 'conversation',
            'data-conversation-id': conversation.id,
            'aria-current': openConversation?.id === conversation.id ? 'true' : undefined,
            onclick: () => openConversationById(conversation.id).catch(reportError),
          },
          el('span', { className: 'title', text: conversation.title }),
          el('span', { className: 'muted', text: new Date(conversation.createdAt).toLocaleString() }),
        ),
      ),
    ),
  );
  byId('conversation-empty').hidden = conversations.length > 0;
}

function markOpenConversation(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('#conversation-list button')) {
    if (button.dataset.conversationId === openConversation?.id) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
  byId('thread-title').textContent = openConversation?.title ?? 'New conversation';
}

async function openConversationById(id: string): Promise<void> {
  following?.abort();
  const conversation = await api.conversations.get(id);
  openConversation = { id: conversation.id, title: conversation.title };
  markOpenConversation();
  resetRunPanels();
  byId('timeline-section').hidden = true;
  byId('thread').replaceChildren();
  for (const message of conversation.messages) {
    if (message.role === 'user') appendQuestion(message.content);
    else {
      const { answerEl, metaEl } = appendAnswer(message.runId);
      for (const citation of message.citations ?? []) citationsOf(answerEl).set(citation.id, citation);
      renderAnswer(answerEl, message.content, (cid) => citationsOf(answerEl).get(cid));
      answerEl.setAttribute('aria-busy', 'false');
      metaEl.textContent = new Date(message.createdAt).toLocaleString();
    }
  }
  byId('question').focus();
}

function appendQuestion(text: string): HTMLLIElement {
  const li = el(
    'li',
    { className: 'msg user' },
    el('span', { className: 'who', text: 'You' }),
    el('p', { className: 'question-text', text }),
  );
  byId('thread').append(li);
  return li;
}

function appendAnswer(runId?: string): { answerEl: HTMLDivElement; metaEl: HTMLParagraphElement } {
  const answerEl = el('div', { className: 'answer', 'aria-busy': 'true', 'aria-live': 'polite' });
  answerEl.dataset.citations = '';
  const metaEl = el('p', { className: 'meta muted' });
  const li = el('li', { className: 'msg assistant' }, el('span', { className: 'who', text: 'Dossier' }), answerEl, metaEl);
  if (runId) {
    // The run's stored events replay into the timeline and the research tree.
    metaEl.after(
      el('button', { type: 'button', className: 'link', text: 'Show run details', onclick: () => replayRun(runId).catch(reportError) }),
    );
  }
  byId('thread').append(li);
  li.scrollIntoView({ block: 'nearest' });
  return { answerEl, metaEl };
}

async function replayRun(runId: string): Promise<void> {
  const view = new RunView(el('div'), el('p'));
  for await (const { id, event } of api.runEvents(runId)) view.handle(event, id);
  byId('timeline-section').scrollIntoView({ block: 'nearest' });
}

async function ask(question: string, mode: 'rag' | 'research', collection: string): Promise<void> {
  following?.abort();
  const controller = (following = new AbortController());
  if (!openConversation) {
    const created = await api.conversations.create({ title: truncate(question.replace(/\s+/g, ' '), 80) });
    openConversation = { id: created.id, title: created.title };
    await loadConversations();
    markOpenConversation();
  }
  appendQuestion(question);
  const { answerEl, metaEl } = appendAnswer();
  answerEl.replaceChildren(el('p', { className: 'muted', text: mode === 'research' ? 'Planning…' : 'Searching…' }));
  const view = new RunView(answerEl, metaEl);
  // A dropped connection resumes where it stopped: the client reconnects with Last-Event-ID.
  const stream = api.askStream(
    { question, mode, conversationId: openConversation.id, ...(collection ? { collections: [collection] } : {}) },
    { signal: controller.signal, onReconnect: ({ attempt }) => showStatus(`Connection lost; resuming the run (attempt ${attempt})…`) },
  );
  try {
    for await (const { id, event } of stream) view.handle(event, id);
  } catch (error) {
    if (controller.signal.aborted) return;
    // No run id: the POST itself failed, so there is no run to wait for.
    if (!stream.runId) {
      answerEl.replaceChildren(el('p', { className: 'error', text: `The question was not asked: ${(error as Error).message}` }));
      answerEl.setAttribute('aria-busy', 'false');
    }
    throw error;
  }
  if (stream.reconnects > 0) showStatus('');
}

/** New conversation, the question form (Enter asks, Shift+Enter is a new line). */
export function setUpConversations(): void {
  byId('new-conversation').addEventListener('click', () => {
    following?.abort();
    openConversation = null;
    markOpenConversation();
    byId('thread').replaceChildren();
    resetRunPanels();
    byId('timeline-section').hidden = true;
    byId('question').focus();
  });

  byId('ask-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const input = byId<HTMLTextAreaElement>('question');
    const question = input.value.trim();
    if (!question) return;
    const mode = new FormData(form).get('mode') === 'research' ? 'research' : 'rag';
    const collection = byId<HTMLSelectElement>('collection').value;
    const button = byId<HTMLButtonElement>('ask-button');
    button.disabled = true;
    showStatus('');
    input.value = '';
    try {
      await ask(question, mode, collection);
    } catch (error) {
      reportError(error);
    } finally {
      button.disabled = false;
    }
  });

  byId('question').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      byId<HTMLFormElement>('ask-form').requestSubmit();
    }
  });
}
