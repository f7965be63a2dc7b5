/**
 * Deterministic snowflakes: a counter turned into a valid Discord id (19 digits), so two runs of the
 * same test produce the same ids and ids still sort by creation order like real ones.
 */
const DISCORD_EPOCH = 1_420_070_400_000n;

/** Default timestamp encoded in the first id: 2024-01-01T00:00:00Z. */
export const DEFAULT_ID_BASE_TIME = Date.UTC(2024, 0, 1);

export class SnowflakeCounter {
  #count = 0n;

  constructor(private readonly baseTime: number = DEFAULT_ID_BASE_TIME) {}

  /** The next id; each one is one millisecond "later" than the previous. */
  next(): string {
    const n = this.#count++;
    const ms = BigInt(this.baseTime) + n - DISCORD_EPOCH;
    return ((ms << 22n) | (1n << 17n) | (1n << 12n) | (n & 0xfffn)).toString();
  }
}

/** The millisecond timestamp a snowflake encodes. */
export function snowflakeTime(id: string): number {
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH);
}
