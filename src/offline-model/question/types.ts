/**
 * Question analysis for the offline reader: what kind of question it is, what kind of answer it
 * expects, what the answer is about (entities, the noun asked for, a unit, years), the options it
 * offers (comparisons), the calculation it asks for, and the chain of a multi-hop question ("the
 * founder of X" → find X's founder → ask the rest of the question about that person).
 */
export type QuestionType =
  | 'who'
  | 'when'
  | 'where'
  | 'how-many'
  | 'which'
  | 'yes-no'
  | 'how-to'
  | 'list'
  | 'why'
  | 'comparison'
  | 'calculation'
  | 'what';
export type AnswerType =
  | 'person'
  | 'place'
  | 'date'
  | 'year'
  | 'number'
  | 'command'
  | 'list'
  | 'entity'
  | 'yes-no'
  | 'reason'
  | 'description';

/**
 * The rule of QUESTION_TYPE_RULES (question.ts) that decided the question's type, in the table's order:
 * the first rule that applies wins, and `description` is what is left when none does.
 */
export type QuestionRule =
  | 'how-to'
  | 'why'
  | 'list'
  | 'calculation'
  | 'options'
  | 'yes-no'
  | 'how-many:several'
  | 'how-many'
  | 'how-many:measure'
  | 'who'
  | 'when'
  | 'where'
  | 'list:plural'
  | 'wh-phrase'
  | 'wh-inside'
  | 'statement'
  | 'description';

/** One hop of a multi-hop question: "the founder of Harbor Station" (relation "founder", entity "Harbor Station"). */
export interface Hop {
  /** The phrase as the question words it. */
  phrase: string;
  /** The role or relation asked about: "founder", "team that built", "company founded by". */
  relation: string;
  /** The named thing the hop starts from, when the phrase names one. */
  entity?: string;
  /** The question with the hop replaced by `{}`: "In which city was {} born?" */
  rest: string;
  /** The answer is the hop's result itself ("Who is the founder of X?"). */
  terminal: boolean;
}

export type CalculationOp =
  | 'difference'
  | 'sum'
  | 'ratio'
  | 'times'
  | 'percentage'
  | 'percent-change'
  | 'average'
  | 'max'
  | 'min'
  | 'count'
  | 'expression';

export interface CalculationSpec {
  op: CalculationOp;
  /** What is measured: "revenue", "engineers", "operating profit". */
  quantity: string;
  /** The second quantity of a ratio or share ("revenue" in "profit as a share of revenue"). */
  base?: string;
  /** Events whose years are subtracted ("founding", "move its headquarters to Trondheim"). */
  events?: [string, string];
  /** Years the operands belong to, in the question's order. */
  years: string[];
  unit?: string;
  /** How many operands the question announces ("the three teams" → 3). */
  expected?: number;
  /** An arithmetic expression the question asks to evaluate ("3**3**3"). */
  expression?: string;
}

export interface ComparisonSpec {
  /** What decides it: "age", "engineers", "maximum depth", "revenue", "nationality". */
  attribute: string;
  /** Which end wins: the larger value, the smaller one, or "same" (yes/no: do they share it). */
  direction: 'max' | 'min' | 'same';
  /** Whether the attribute is a date (older = earlier birth). */
  byDate: boolean;
  /** No comparative: the option the question's description fits wins ("Which poet was from Scotland, A or B?"). */
  byProperty?: boolean;
  /** The date compared: a death ("Who died first?") or the length of a life ("Who lived longer?"); otherwise a birth, founding or release. */
  event?: 'death' | 'lifespan';
  /** "Is A older than B?": the answer is whether the first option wins. */
  firstWins?: boolean;
}

export interface QuestionAnalysis {
  question: string;
  type: QuestionType;
  answerType: AnswerType;
  /**
   * The rule that decided `type` and `answerType`. Options side by side may still turn a who/which/
   * what/when/where question into a comparison after it (`comparison` then says what is compared).
   */
  rule: QuestionRule;
  /** The noun the question asks for ("city", "government position", "year"), lower-case. */
  focus?: string;
  /** Unit words for a number ("people", "million euros"). */
  unit?: string;
  /** Named entities and quoted titles in the question. */
  entities: string[];
  /** Options the question offers: "A or B", "both A and B". */
  candidates: string[];
  comparison?: ComparisonSpec;
  calculation?: CalculationSpec;
  /** Multi-hop chain, innermost hop first. */
  chain: Hop[];
  /** Years the question names. */
  years: string[];
  /** Several values asked at once ("at the end of 2023 and at the end of 2024"). */
  multiValue: boolean;
  /**
   * The thing a trailing relative clause asks about, described and not named: "a South Korean boy
   * group" in "… the debut album of a South Korean boy group that was formed by who?". The answer is
   * what its passage says, never the thing itself.
   */
  described?: string;
  /**
   * "Who directed X?", "Which company published X?", "Who is the founder of X?": the participle whose
   * "by …" names the answer ("directed", "published", "founded").
   */
  agentOf?: string;
  /**
   * "… known as what for sponsorship reasons?", "… was nicknamed what?": the naming verb whose
   * complement is the answer ("known as", "nicknamed").
   */
  namedAs?: string;
}
