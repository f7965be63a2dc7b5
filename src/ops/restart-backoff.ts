/**
 * How long to wait before starting a shard again after its process ended. A shard that dies at
 * once every time (a bad deploy, storage down) must not be restarted at once every time: each start
 * is a gateway session, and Discord allows about 1,000 a day per bot. So the waits double from
 * `firstMs` up to `maxMs`, and the count starts over once a shard has stayed up for `stableMs`.
 */
export interface RestartBackoffOptions {
  /** Default 2 s. */
  firstMs?: number;
  /** Default 5 minutes: a shard dying forever costs at most about 300 session starts a day. */
  maxMs?: number;
  /** Up this long, and the shard counts as healthy again. Default 60 s. */
  stableMs?: number;
}

export class RestartBackoff {
  readonly #failures = new Map<number, number>();
  readonly #first: number;
  readonly #max: number;
  readonly #stable: number;

  constructor(options: RestartBackoffOptions = {}) {
    this.#first = options.firstMs ?? 2_000;
    this.#max = options.maxMs ?? 300_000;
    this.#stable = options.stableMs ?? 60_000;
  }

  /** The wait before restarting `shard`, whose process ended after running `upMs`. */
  next(shard: number, upMs: number): number {
    const failures = upMs >= this.#stable ? 1 : (this.#failures.get(shard) ?? 0) + 1;
    this.#failures.set(shard, failures);
    return Math.min(this.#first * 2 ** (failures - 1), this.#max);
  }
}
