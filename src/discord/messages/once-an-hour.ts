/**
 * Things said at most once an hour to a member (the hint on how to ask after a bare mention, a refusal
 * where the bot answers every message): a busy channel must not fill with the bot's notes. In this
 * process only: a guild lives on one shard, and a restart forgetting a note is harmless.
 */
export class OnceAnHour {
  private readonly said = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly everyMs = 3_600_000,
  ) {}

  /** True the first time `key` asks within the hour (and it then counts as said). */
  take(key: string): boolean {
    const at = this.now();
    const last = this.said.get(key);
    if (last !== undefined && at - last < this.everyMs) return false;
    this.said.set(key, at);
    // Bounded: what was said more than an hour ago is forgotten as new notes come.
    if (this.said.size > 10_000) for (const [k, t] of this.said) if (at - t >= this.everyMs) this.said.delete(k);
    return true;
  }
}
