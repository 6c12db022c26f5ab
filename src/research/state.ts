import type { FinishReason, PlanItem, Usage } from '../agent/events.ts';
import type { Critique } from './critique.ts';

/** One nested RAG agent of a research run, as the report and `ask --json` (`subagents`) show it. */
export interface SubagentRecord {
  /** "rag:1", "rag:2", … (its events carry `path: ["research", id]`). */
  id: string;
  /** The plan item it answered ("S2"), when the planner named one. */
  subQuestion?: string;
  question: string;
  finishReason: FinishReason;
  /** Its answer, with citations rewritten to the research run's evidence ids. */
  answer: string;
  /** Evidence ids (of the research run) its answer cites. */
  citations: string[];
  error?: { code: string; message: string };
  steps: number;
  toolCalls: number;
  usage: Usage;
  ms: number;
}

/** What a research run has planned and done so far; its tools write here, the report reads it. */
export class ResearchState {
  brief = '';
  plan: PlanItem[] = [];
  readonly subagents: SubagentRecord[] = [];
  readonly critiques: Critique[] = [];
  private nextSubagent = 1;

  constructor(readonly question: string) {}

  /** Sets the plan; a sub-question asked again keeps the status it had. */
  setPlan(brief: string, questions: readonly string[]): PlanItem[] {
    const previous = new Map(this.plan.map((item) => [item.question.toLowerCase(), item.status]));
    this.brief = brief;
    this.plan = questions.map((question, i) => ({ id: `S${i + 1}`, question, status: previous.get(question.toLowerCase()) ?? 'open' }));
    return this.plan;
  }

  /** The plan item a nested agent answers: the one named, or the one with the same question. */
  planItemFor(question: string, named?: string): PlanItem | undefined {
    return this.plan.find((item) => item.id.toLowerCase() === named?.toLowerCase()) ?? this.plan.find((item) => item.question.toLowerCase() === question.toLowerCase());
  }

  newSubagentId(): string {
    return `rag:${this.nextSubagent++}`;
  }

  /** Sub-questions still open or failed, as "S2: question". */
  openItems(): string[] {
    return this.plan.filter((item) => item.status !== 'answered').map((item) => `${item.id}: ${item.question}`);
  }
}
