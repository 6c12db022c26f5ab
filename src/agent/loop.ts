// The agent loop now lives in run-agent.ts and the modules it composes; this path stays for existing imports.
export { runAgent, AGENT_DEFAULTS, type AgentModel, type AgentOptions, type AgentResult } from './run-agent.ts';
