import type { z } from 'zod';
import type { Dossier } from '../../dossier.ts';
import type { Scope } from '../../store/types.ts';
import type { EvidenceLedger, LedgerEntry } from '../ledger.ts';

/** What every tool gets: the engine, the run's scope (every read is scoped) and its ledger. */
export interface ToolContext {
  dossier: Dossier;
  scope: Scope;
  ledger: EvidenceLedger;
  step: number;
  signal?: AbortSignal;
  /** Token budget for the text the model sees from one call. */
  resultTokens: number;
  /** One-shot text generation with the run's model, when the run has a real model (RAG-Fusion, HyDE). */
  generate?: (prompt: string) => Promise<string>;
}

export interface ToolResult {
  /** Structured result, for traces and citations. */
  raw: unknown;
  /** Token-budgeted, fenced text the model sees. */
  forModel: string;
  /** Ledger entries this call added or touched. */
  evidence: LedgerEntry[];
  /** Entries this call added to the ledger (drives stagnation detection and evidence-added events). */
  newEvidence: LedgerEntry[];
  /** One line for events and traces. */
  summary: string;
}

export interface AgentTool<Input = any> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** Search tools count towards stagnation: a search that finds nothing new is a wasted step. */
  searches?: boolean;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}
