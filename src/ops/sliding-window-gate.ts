/**
 * At most `limit` passes in any sliding window of `windowMs`, first come first served. The REST proxy
 * holds requests here just before they leave, so no second (however it is cut) sees more than the limit.
 */
export class SlidingWindowGate {
  readonly #passed: number[] = [];
  #tail: Promise<void> = Promise.resolve();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {}

  /** Resolves when the caller may go; callers go in the order they asked. */
  take(): Promise<void> {
    const turn = this.#tail.then(() => this.#wait());
    this.#tail = turn;
    return turn;
  }

  async #wait(): Promise<void> {
    for (;;) {
      const now = this.now();
      while (this.#passed.length > 0 && now - (this.#passed[0] as number) >= this.windowMs) this.#passed.shift();
      if (this.#passed.length < this.limit) {
        this.#passed.push(now);
        return;
      }
      await this.sleep((this.#passed[0] as number) + this.windowMs - now);
    }
  }
}
