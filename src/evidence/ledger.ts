import type { StoredChunk } from '../store/types.ts';
import type { EvidenceSummary } from '../protocol/events.ts';

/**
 * The evidence ledger: every chunk a tool returns enters once (deduplicated by chunk id) under a
 * short id ("E1", "E2", …) that stays stable for the run and is never reused, even after eviction.
 * A capacity bounds what the model must keep in mind; past it the weakest evidence that nobody
 * has cited or opened is evicted. A relative similarity floor marks weak hits as low-confidence.
 */
export interface LedgerEntry {
  id: string;
  chunk: StoredChunk;
  /** Best retrieval score seen for this chunk (higher is better; scale depends on the search). */
  score: number;
  /** Score relative to the best hit of the search that found it (0–1). */
  relativeScore: number;
  step: number;
  query: string;
  tool: string;
  lowConfidence: boolean;
  /** Cited in an answer or read in full: never evicted. */
  used: boolean;
  /** Order in which entries were added (ties in ranking keep this order). */
  sequence: number;
  /** How many searches returned this chunk: evidence found by several queries ranks higher. */
  hits: number;
  /** Sum over searches of 1 / (60 + rank): a fused rank across every search of the run. */
  fusedScore: number;
  /** How the model has been shown it in this run: whole (later showings refer to it), or cut. */
  shown?: 'whole' | 'cut';
}

/** A result the run computed (a python run): `P1`, `P2`, …, support for the numbers it printed. Never evicted. */
export interface ComputedEntry {
  id: string;
  /** What it printed. */
  text: string;
  /** What produced it (the code). */
  input: string;
  step: number;
  tool: string;
}

export interface LedgerOptions {
  capacity?: number;
  /** Hits scoring below this share of their search's best hit are marked low-confidence. */
  similarityFloor?: number;
  /** Distinct chunks a run may read in all (evaluation protocols cap this); later new hits are dropped. */
  maxDistinct?: number;
  /** A read cap shared with other ledgers (a research run and its nested agents); overrides `maxDistinct`. */
  reads?: ReadBudget;
}

/**
 * How many distinct chunks a run may read, counted once per chunk however many ledgers (a research
 * planner and its nested agents) hold it.
 */
export class ReadBudget {
  private readonly admitted = new Set<number>();

  constructor(readonly max = Number.POSITIVE_INFINITY) {}

  /** True when the chunk was read already or there is room to read it (and then it counts). */
  admit(chunkId: number): boolean {
    if (this.admitted.has(chunkId)) return true;
    if (this.admitted.size >= this.max) return false;
    this.admitted.add(chunkId);
    return true;
  }

  get used(): number {
    return this.admitted.size;
  }
}

export class EvidenceLedger {
  readonly capacity: number;
  readonly similarityFloor: number;
  readonly maxDistinct: number;
  private readonly reads: ReadBudget;
  private readonly byId = new Map<string, LedgerEntry>();
  private readonly byChunk = new Map<number, LedgerEntry>();
  private nextNumber = 1;
  private evictedCount = 0;
  private readonly computedEntries: ComputedEntry[] = [];

  constructor(options: LedgerOptions = {}) {
    this.capacity = options.capacity ?? 40;
    this.similarityFloor = options.similarityFloor ?? 0.35;
    this.reads = options.reads ?? new ReadBudget(options.maxDistinct ?? Number.POSITIVE_INFINITY);
    this.maxDistinct = this.reads.max;
  }

  /** Distinct chunks ever added, evicted ones included. */
  get distinct(): number {
    return this.nextNumber - 1;
  }

  get size(): number {
    return this.byId.size;
  }

  get evicted(): number {
    return this.evictedCount;
  }

  /**
   * Adds the hits of one search (best first). Returns each hit's entry and whether it is new.
   * Already-known chunks keep their id and gain the better score.
   */
  addHits(
    hits: readonly { chunk: StoredChunk; score: number }[],
    origin: { step: number; query: string; tool: string; used?: boolean },
  ): { entry: LedgerEntry; isNew: boolean }[] {
    const best = hits.reduce((max, hit) => Math.max(max, hit.score), 0);
    const out: { entry: LedgerEntry; isNew: boolean }[] = [];
    hits.forEach((hit, rank) => {
      const relativeScore = best > 0 ? hit.score / best : 0;
      const existing = this.byChunk.get(hit.chunk.id);
      if (existing) {
        existing.hits++;
        existing.fusedScore += 1 / (60 + rank + 1);
        if (hit.score > existing.score) existing.score = hit.score;
        if (origin.used) existing.used = true;
        if (relativeScore > existing.relativeScore) {
          existing.relativeScore = relativeScore;
          existing.lowConfidence = relativeScore < this.similarityFloor;
        }
        out.push({ entry: existing, isNew: false });
        return;
      }
      if (!this.reads.admit(hit.chunk.id)) return;
      const entry: LedgerEntry = {
        id: `E${this.nextNumber++}`,
        chunk: hit.chunk,
        score: hit.score,
        relativeScore,
        step: origin.step,
        query: origin.query,
        tool: origin.tool,
        lowConfidence: relativeScore < this.similarityFloor,
        used: origin.used ?? false,
        sequence: this.nextNumber,
        hits: 1,
        fusedScore: 1 / (60 + rank + 1),
      };
      this.byId.set(entry.id, entry);
      this.byChunk.set(hit.chunk.id, entry);
      out.push({ entry, isNew: true });
    });
    this.evict();
    return out;
  }

  /**
   * Takes over entries of another ledger (the evidence a nested agent cited): each chunk gets this
   * ledger's id for it (one id per chunk, however many agents found it) and is kept as used.
   * Returns the new id of every entry, by its old id.
   */
  adopt(entries: readonly LedgerEntry[], origin: { step: number; tool: string; used?: boolean }): Map<string, LedgerEntry> {
    const ids = new Map<string, LedgerEntry>();
    for (const entry of entries) {
      const [added] = this.addHits([{ chunk: entry.chunk, score: entry.score }], {
        ...origin,
        query: entry.query,
        used: origin.used ?? true,
      });
      if (!added) continue;
      // The other agent's ranking comes along: how often and how high its searches found the chunk.
      if (added.isNew) {
        added.entry.hits = entry.hits;
        added.entry.fusedScore = entry.fusedScore;
      } else {
        added.entry.hits += entry.hits - 1;
        added.entry.fusedScore += entry.fusedScore - 1 / 61;
      }
      ids.set(entry.id, added.entry);
    }
    return ids;
  }

  /** Records a computed result under the next `P` id. */
  addComputed(result: Omit<ComputedEntry, 'id'>): ComputedEntry {
    const entry = { id: `P${this.computedEntries.length + 1}`, ...result };
    this.computedEntries.push(entry);
    return entry;
  }

  /** The computed results, in order. */
  computed(): readonly ComputedEntry[] {
    return this.computedEntries;
  }

  get(id: string): LedgerEntry | undefined {
    return this.byId.get(id.toUpperCase());
  }

  forChunk(chunkId: number): LedgerEntry | undefined {
    return this.byChunk.get(chunkId);
  }

  /** Shown whole to the model before in this run: a later result refers to it instead of re-sending it. */
  wasShownWhole(id: string): boolean {
    return this.get(id)?.shown === 'whole';
  }

  markShown(id: string, whole: boolean): void {
    const entry = this.get(id);
    if (entry && entry.shown !== 'whole') entry.shown = whole ? 'whole' : 'cut';
  }

  /** No longer in the model's transcript (compacted away): the next result shows it again. */
  markUnshown(id: string): void {
    const entry = this.get(id);
    if (entry) entry.shown = undefined;
  }

  markUsed(id: string): void {
    const entry = this.get(id);
    if (entry) entry.used = true;
  }

  /** Entries in the order they were found. */
  entries(): LedgerEntry[] {
    return [...this.byId.values()].sort((a, b) => a.sequence - b.sequence);
  }

  /** Strongest first: fused rank over every search, then the raw score. */
  ranked(): LedgerEntry[] {
    return [...this.byId.values()].sort((a, b) => b.fusedScore - a.fusedScore || b.score - a.score || a.sequence - b.sequence);
  }

  summary(entry: LedgerEntry): EvidenceSummary {
    return {
      id: entry.id,
      chunkId: entry.chunk.id,
      documentId: entry.chunk.documentId,
      title: entry.chunk.title,
      score: entry.score,
      query: entry.query,
      step: entry.step,
      lowConfidence: entry.lowConfidence,
    };
  }

  private evict(): void {
    while (this.byId.size > this.capacity) {
      let weakest: LedgerEntry | undefined;
      for (const entry of this.byId.values()) {
        if (entry.used) continue;
        // Ties go to the older entry: the newest search is the one the model is acting on.
        if (
          !weakest ||
          entry.fusedScore < weakest.fusedScore ||
          (entry.fusedScore === weakest.fusedScore && entry.sequence < weakest.sequence)
        )
          weakest = entry;
      }
      if (!weakest) return; // everything is in use: keep it rather than drop cited evidence
      this.byId.delete(weakest.id);
      this.byChunk.delete(weakest.chunk.id);
      this.evictedCount++;
    }
  }
}
