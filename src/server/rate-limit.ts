/** A fixed-window request counter per key: at most `perMinute` requests in any calendar minute. */
export class RateLimiter {
  private window = 0;
  private readonly counts = new Map<string, number>();

  constructor(private readonly perMinute: number) {}

  allow(key: string, now = Date.now()): boolean {
    const window = Math.floor(now / 60_000);
    if (window !== this.window) {
      this.window = window;
      this.counts.clear();
    }
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, count);
    return count <= this.perMinute;
  }
}
