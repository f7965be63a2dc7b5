/**
 * One-time starts: a button that starts a turn (Continue) must start one however many clicks arrive
 * before it is gone (a double click, two devices). The first claim of a key wins; claims are forgotten
 * after a quarter of an hour, when the button is long gone.
 */
export class OneTimeClaims {
  private readonly claimed = new Set<string>();

  constructor(private readonly forgetAfterMs = 15 * 60_000) {}

  /** True for the first claim of `key` only. */
  claim(key: string): boolean {
    if (this.claimed.has(key)) return false;
    this.claimed.add(key);
    setTimeout(() => this.claimed.delete(key), this.forgetAfterMs).unref();
    return true;
  }

  /** Give a claim back (the start was refused, and the button is offered again). */
  release(key: string): void {
    this.claimed.delete(key);
  }
}
