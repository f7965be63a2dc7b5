/**
 * How many times something may happen per key in a sliding minute: sign-ins started from one address
 * (20), writes by one member (60). Kept in this process: several console processes each keep their own,
 * which bounds the total by their number; a reverse proxy in front may add its own limits.
 */
export class RateWindow {
  readonly #hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Count one for `key`: true if it is within the limit, false (and not counted) past it. */
  take(key: string): boolean {
    const now = this.now();
    const recent = (this.#hits.get(key) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length >= this.limit) {
      this.#hits.set(key, recent);
      return false;
    }
    recent.push(now);
    this.#hits.set(key, recent);
    // Keys that went quiet are dropped now and then, so the map does not grow with every address seen.
    if (this.#hits.size > 10_000) for (const [k, hits] of this.#hits) if (hits.every((at) => now - at >= this.windowMs)) this.#hits.delete(k);
    return true;
  }
}
