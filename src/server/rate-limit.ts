/**
 * Adds one request to `key`'s count for the minute `window` and returns the new count: how several
 * nodes share one limit (PostgreSQL: one row per key and minute, bumped by an atomic upsert).
 */
export type RequestCounter = (key: string, window: number) => Promise<number>;

/**
 * A fixed-window request counter per key: at most `perMinute` requests in any calendar minute.
 * Counted in this process, or by `shared` when nodes share a database.
 */
export class RateLimiter {
  private window = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly shared?: RequestCounter,
  ) {}

  async allow(key: string, now = Date.now()): Promise<boolean> {
    const window = Math.floor(now / 60_000);
    // Counted under the limit too: nodes configured alike share one count; a node with another limit keeps its own.
    if (this.shared) return (await this.shared(`${this.perMinute}/${key}`, window)) <= this.perMinute;
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count <= this.perMinute;
  }
}
