// The server's application layer for runs: the run manager, the one event subscription every
// streaming route reads, conversations and follow-up rewriting. Routes validate, call and render.
export { RunManager, type RunRequest } from './run-manager.ts';
export { runEventStream } from './event-stream.ts';
export { startChatRun, startConversationRun, type ChatMessage, type ChatRunRequest, type RunDeps } from './conversations.ts';
export { standaloneQuestion } from './follow-ups.ts';
