import type { PlanItem } from '../protocol/events.ts';
import type { Critique } from '../evidence/claims.ts';
import type { SubagentRecord } from '../protocol/json-shapes.ts';
export type { SubagentRecord } from '../protocol/json-shapes.ts';

/** What a research run has planned and done so far; its tools write here, the report reads it. */
export class ResearchState {
  brief = '';
  plan: PlanItem[] = [];
  readonly subagents: SubagentRecord[] = [];
  readonly critiques: Critique[] = [];
  /** Each draft is critiqued once (the tool's and the gate's share this): by draft and plan status. */
  readonly critiqued = new Map<string, Critique>();
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
    return (
      this.plan.find((item) => item.id.toLowerCase() === named?.toLowerCase()) ??
      this.plan.find((item) => item.question.toLowerCase() === question.toLowerCase())
    );
  }

  /** The key a draft's critique is kept under: the draft and where the plan stands. */
  critiqueKey(draft: string): string {
    return `${this.plan.map((item) => `${item.id}=${item.status}`).join(',')}\n${draft}`;
  }

  newSubagentId(): string {
    return `rag:${this.nextSubagent++}`;
  }

  /** Sub-questions still open or failed, as "S2: question". */
  openItems(): string[] {
    return this.plan.filter((item) => item.status !== 'answered').map((item) => `${item.id}: ${item.question}`);
  }
}
