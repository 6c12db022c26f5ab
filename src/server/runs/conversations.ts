import type { AskResult } from '../../ask/ask.ts';
import { DossierError } from '../../errors/index.ts';
import type { Principal } from '../principal.ts';
import type { MessageRecord, ServerState } from '../state/index.ts';
import { standaloneQuestion } from './follow-ups.ts';
import type { RunManager, RunRequest } from './run-manager.ts';

/** What starting a run in a conversation needs of the server. */
export interface RunDeps {
  state: ServerState;
  runs: RunManager;
}

/** One message of a chat as the client sent it: the role and its text. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  text: string;
}

export interface ChatRunRequest {
  messages: ChatMessage[];
  mode: 'rag' | 'research';
  model?: string;
  collections?: string[];
  conversationId?: string;
  maxSteps?: number;
  critiqueModel?: string;
}

/**
 * Starts a run, in a conversation when one is named (the caller's own; a follow-up is rewritten
 * into a standalone question first and the earlier turns are kept with it), and records the
 * question and, when it finishes, the answer as messages. `parentId` branches from an earlier message.
 */
export async function startConversationRun(deps: RunDeps, principal: Principal, request: RunRequest & { parentId?: string }) {
  let question = request.question;
  let parentId = request.parentId;
  if (request.conversationId) {
    const conversation = await deps.state.conversation(request.conversationId);
    if (!conversation || conversation.userId !== principal.user.id) throw new DossierError('not-found', 'no such conversation');
    const all = await deps.state.messages(conversation.id);
    // The branch the question continues: up to its parent, or the whole thread.
    const history = parentId ? branchTo(all, parentId) : all;
    if (parentId && history.length === 0) throw new DossierError('not-found', 'no such parent message in this conversation');
    parentId ??= all.at(-1)?.id;
    question = standaloneQuestion(request.question, history);
  }
  const conversationId = request.conversationId;
  let asked: MessageRecord | undefined;
  // The question is recorded before the run starts and the answer before it counts as done, so whoever awaits `done` reads both.
  const hooks = conversationId
    ? {
        beforeRun: async (runId: string) =>
          void (asked = await deps.state.addMessage({
            conversationId,
            ...(parentId ? { parentId } : {}),
            role: 'user',
            content: request.question,
            runId,
          })),
        afterRun: async (result: AskResult) =>
          void (await deps.state.addMessage({
            conversationId,
            parentId: asked!.id,
            role: 'assistant',
            content: result.answer,
            runId: asked!.runId,
            citations: result.citations,
          })),
      }
    : {};
  const { runId, done } = await deps.runs.start(principal, request, { question }, hooks);
  return { runId, done, question };
}

/** The messages from the root to `id`, following parents. */
function branchTo(messages: readonly MessageRecord[], id: string): MessageRecord[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const path: MessageRecord[] = [];
  for (let at = byId.get(id); at; at = at.parentId ? byId.get(at.parentId) : undefined) path.unshift(at);
  return path;
}

/**
 * Starts the run of a chat turn: the last user message is the question. In a server conversation
 * the stored thread is the context (startConversationRun rewrites the follow-up); otherwise the
 * messages the client sent are, and the follow-up is made standalone from them here.
 */
export async function startChatRun(
  deps: RunDeps,
  principal: Principal,
  request: ChatRunRequest,
  checkLength: (text: string, what: string) => void,
): Promise<{ runId: string; done: Promise<AskResult>; question: string }> {
  let last = request.messages.length - 1;
  while (last >= 0 && request.messages[last]!.role !== 'user') last--;
  const question = last >= 0 ? request.messages[last]!.text.trim() : '';
  if (!question) throw new DossierError('bad-input', 'messages: the last user message has no text to ask');
  checkLength(question, 'question');
  const run = {
    question,
    mode: request.mode,
    model: request.model,
    collections: request.collections,
    maxSteps: request.maxSteps,
    critiqueModel: request.critiqueModel,
  };
  if (request.conversationId) return startConversationRun(deps, principal, { ...run, conversationId: request.conversationId });
  // Only user and assistant turns are context; a client's system prompt cannot change the agent's rules.
  const history: MessageRecord[] = request.messages
    .slice(0, last)
    .filter((m) => m.role !== 'system')
    .map((m, i) => ({ id: String(i), conversationId: '', role: m.role as 'user' | 'assistant', content: m.text, createdAt: '' }));
  const standalone = standaloneQuestion(question, history);
  const { runId, done } = await deps.runs.start(principal, run, { question: standalone });
  return { runId, done, question: standalone };
}
