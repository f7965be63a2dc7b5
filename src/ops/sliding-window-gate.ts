/**
 * At most `limit` requests arriving at the far side in any window of `windowMs`, however late the
 * network delivers them, first come first served. A request holds its slot while in flight and for
 * `windowMs` after its answer: any two requests that could arrive within one window of each other
 * then both hold a slot when the later one leaves, so the window never sees more than `limit`.
 * (Counting from when a request leaves instead lets a busy machine's delays bunch two windows' worth
 * into one.) The REST proxy holds requests here just before they go to Discord.
 */
export class SlidingWindowGate {
  /** When each answered request's slot frees (its answer time plus the window). */
  readonly #freesAt: number[] = [];
  #inFlight = 0;
  #tail: Promise<void> = Promise.resolve();
  #wake: (() => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Resolves when the caller may send, with `done` to call once its answer (or failure) arrived. */
  take(): Promise<() => void> {
    const turn = this.#tail.then(() => this.#wait());
    this.#tail = turn.then(() => undefined);
    return turn.then(() => {
      this.#inFlight++;
      let finished = false;
      return () => {
        if (finished) return;
        finished = true;
        this.#inFlight--;
        this.#freesAt.push(this.now() + this.windowMs);
        this.#wake?.();
      };
    });
  }

  async #wait(): Promise<void> {
    for (;;) {
      const now = this.now();
      while (this.#freesAt.length > 0 && (this.#freesAt[0] as number) <= now) this.#freesAt.shift();
      if (this.#inFlight + this.#freesAt.length < this.limit) return;
      // Wait for the next slot to free, or for an answer (which starts a slot's countdown).
      const until = this.#freesAt.length > 0 ? (this.#freesAt[0] as number) - now : this.windowMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(until, 1));
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }
}
