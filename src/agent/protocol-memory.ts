/**
 * What the engine learned about model servers: a server that rejected `tools` gets the text protocol
 * on later runs instead of paying for the failed request again. Kept per model key (server and model,
 * so another model on the same server is not affected) and forgotten after a while, because servers
 * get upgraded or restarted with tool calling switched on.
 */
import type { Protocol } from './types.js';

export class ProtocolMemory {
  private readonly learned = new Map<string, { protocol: Protocol; until: number }>();

  constructor(
    /** How long a learned protocol holds before the server is probed again (default one hour). */
    private readonly ttlMs = 3_600_000,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The protocol learned for `key`, if it has not expired. */
  get(key: string): Protocol | undefined {
    const entry = this.learned.get(key);
    if (!entry) return undefined;
    if (this.clock() < entry.until) return entry.protocol;
    this.learned.delete(key);
    return undefined;
  }

  remember(key: string, protocol: Protocol): void {
    this.learned.set(key, { protocol, until: this.clock() + this.ttlMs });
  }
}
