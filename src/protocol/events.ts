import type { IndexIdentity } from '../store/types.ts';

/**
 * The one event stream of an agent run. The CLI, the JSONL trace, SSE, the web page and MCP all
 * consume these; `run-finish` is always the last event and always carries a finish reason.
 */
export type FinishReason = 'stop' | 'max-steps' | 'budget' | 'stagnation' | 'no-evidence' | 'needs-approval' | 'error' | 'aborted';
export const FINISH_REASONS: readonly FinishReason[] = [
  'stop',
  'max-steps',
  'budget',
  'stagnation',
  'no-evidence',
  'needs-approval',
  'error',
  'aborted',
];

export interface Usage {
  inputTokens: number;
  outputTokens: number;
}

export interface ToolCallRecord {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the model's arguments were not valid JSON or failed the schema. */
  inputError?: string;
}

export interface EvidenceSummary {
  id: string;
  chunkId: number;
  documentId: number;
  title: string;
  score: number;
  query: string;
  step: number;
  lowConfidence: boolean;
}

export interface Citation {
  id: string;
  chunkId: number;
  documentId: number;
  title: string;
  source: string;
  text: string;
  headingPath: string[];
  page?: number;
  charStart: number;
  charEnd: number;
}

/** One sub-question of a research plan, and how far it got. */
export interface PlanItem {
  id: string;
  question: string;
  status: 'open' | 'answered' | 'failed';
}

/** What the critique found about one claim of a draft. */
export interface ClaimCheck {
  claim: string;
  citations: string[];
  verdict: 'supported' | 'uncited' | 'unresolved' | 'unsupported' | 'contradicted';
  /** How it was checked, or what is missing ("the cited passage has no 1987"). */
  reason: string;
}

/** Who raised a finding or a warning: the critique gate, the citation check, or the research plan. */
export type FindingSource = 'critique' | 'citation-check' | 'planner';

/**
 * A finding about one claim of an answer, reported beside it: Dossier never writes findings into a
 * model's answer. `claim` is empty for a finding about the critique itself (a reply it could not read).
 */
export interface Finding {
  claim: string;
  finding: string;
  by: FindingSource;
  verdict?: ClaimCheck['verdict'];
  citations?: string[];
}

/** Something a reader of the answer should know that is not about one claim: a sub-question left open, an id that resolves to nothing. */
export interface RunWarning {
  by: FindingSource;
  message: string;
  /** The plan id (S2) of an open sub-question. */
  subQuestion?: string;
  /** The evidence id (E9) that resolved to nothing. */
  id?: string;
}

/**
 * Every event may carry `path`: where in a research run it happened (`["research", "rag:2"]` for
 * the second nested RAG agent); events of a top-level run have none.
 */
export type AgentEvent = AgentEventBody & { path?: string[] };

type AgentEventBody =
  /**
   * `textTools`: the model used the text tool protocol (what a replay must use too); `index`: which
   * index, at which generation, the run read (replay refuses another).
   */
  | {
      type: 'run-start';
      runId: string;
      question: string;
      mode: string;
      model: string;
      textTools: boolean;
      time: string;
      index?: IndexIdentity;
      maxSteps?: number;
    }
  | { type: 'step-start'; step: number }
  | { type: 'thinking-delta'; step: number; delta: string }
  | { type: 'text-delta'; step: number; delta: string }
  /** Everything the model produced in one turn: what `dossier replay` feeds back. */
  | {
      type: 'model-output';
      step: number;
      text: string;
      toolCalls: ToolCallRecord[];
      usage: Usage;
      ms: number /** What the model declared in structure (protocol/model-metadata.ts). */;
      notFound?: true;
      answeredBy?: string;
      questionRule?: string;
      closest?: string[];
      /** Older tool results compacted to one line a passage before this call (the context budget): how many, and the tool results' tokens before and after. */
      compacted?: { results: number; tokensBefore: number; tokensAfter: number };
    }
  | { type: 'tool-call'; step: number; toolCallId: string; toolName: string; input: unknown }
  | {
      type: 'tool-result';
      step: number;
      toolCallId: string;
      toolName: string;
      ok: boolean;
      summary: string;
      evidenceIds: string[];
      ms: number;
    }
  | { type: 'evidence-added'; step: number; evidence: EvidenceSummary }
  | { type: 'citation'; citation: Citation }
  | { type: 'citation-unresolved'; id: string }
  | { type: 'final-answer'; answer: string; citations: Citation[]; unresolvedCitations: string[]; partial: boolean }
  | { type: 'error'; step: number; message: string; code: string }
  /** Research: the brief and the sub-questions the planner will work through (again when their status changes). */
  | { type: 'plan'; step: number; brief: string; items: PlanItem[] }
  | { type: 'subagent-start'; step: number; id: string; question: string }
  | { type: 'subagent-finish'; step: number; id: string; finishReason: FinishReason; citations: number; ms: number; error?: string }
  /**
   * A critique of a draft or an answer. `findings`: what it found, each once, with who raised it;
   * `final`: the critique of the answer delivered (then `warnings` too: open sub-questions); `model`: the
   * model that judged ("offline" for the word-match critique).
   */
  | {
      type: 'critique';
      step: number;
      checks: ClaimCheck[];
      openQuestions: string[];
      findings?: Finding[];
      final?: true;
      warnings?: RunWarning[];
      model?: string;
    }
  /** The run paused before its final answer; `dossier approve <runId>` (or deny) decides. */
  | { type: 'approval-required'; runId: string; reason: string }
  /** Who approved or denied a paused run, and when. */
  | { type: 'approval'; runId: string; decision: 'approved' | 'denied'; by: string; time: string; note?: string }
  | { type: 'run-finish'; finishReason: FinishReason; steps: number; toolCalls: number; usage: Usage; ms: number };

export type EventListener = (event: AgentEvent) => void;
