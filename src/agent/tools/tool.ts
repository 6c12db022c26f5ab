import type { z } from 'zod';
import type { Knowledge } from '../../retrieve/knowledge.ts';
import type { Scope } from '../../store/types.ts';
import type { EvidenceLedger, LedgerEntry } from '../../evidence/ledger.ts';

/** What every tool gets: the knowledge it reads, the run's scope (every read is scoped) and its ledger. */
export interface ToolContext {
  knowledge: Knowledge;
  scope: Scope;
  ledger: EvidenceLedger;
  step: number;
  /**
   * Fires when this call times out or the run is aborted. A tool stops its work when it fires and
   * leaves nothing behind (no ledger entries); `signal.throwIfAborted()` before each write is enough.
   */
  signal: AbortSignal;
  /** Token budget for the text the model sees from one call. */
  resultTokens: number;
  /** Emits an event into the run's stream (research tools: plans, nested agents, critiques). */
  emit?: (event: import('../../protocol/events.ts').AgentEvent) => void;
  /** One-shot text generation with the run's model, when the run has a real model (RAG-Fusion, HyDE); stops with `signal`. */
  generate?: (prompt: string) => Promise<string>;
}

/** What a tool may read when a run specialises it (`AgentTool.forRun`). */
export interface RunToolContext {
  knowledge: Knowledge;
  scope: Scope;
  /** The run's model can write text for a tool (`ToolContext.generate` is set). */
  canGenerate: boolean;
}

export interface ToolResult {
  /** Structured result, for traces and citations. */
  raw: unknown;
  /** Token-budgeted text the model sees; retrieved text in it is fenced (see evidence-format.ts). */
  forModel: string;
  /** Ledger entries this call added or touched. */
  evidence: LedgerEntry[];
  /** Entries this call added to the ledger (drives stagnation detection and evidence-added events). */
  newEvidence: LedgerEntry[];
  /** One line for events and traces. */
  summary: string;
}

/**
 * A tool the agent may call. Failures are thrown (an Error with a one-line message); the tool
 * runner turns them, like unknown tools, invalid arguments and timeouts, into error results the
 * model reads. `toolContract` (src/testing/tool-contract.ts) checks all of this for any tool.
 */
export interface AgentTool<Input = any> {
  /** lower_snake_case, unique within a run. */
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** Search tools count towards stagnation: a search that finds nothing new is a wasted step. */
  searches?: boolean;
  /**
   * This tool as one run offers it, when its description or input depend on the run: what the index
   * holds in the run's scope, or whether the run's model can write text (a strategy that cannot run
   * is not offered). Called once when the run starts; undefined when the tool has nothing to offer
   * this run (search_graph where no collection in scope has a graph), and then it is not offered.
   */
  forRun?(run: RunToolContext): Promise<AgentTool<Input> | undefined>;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}
