/**
 * A run's system prompt and request fields. They change only when the protocol or the allowed tools
 * do, so they are built once per change, not once per step (with no policy narrowing the tools, the
 * allowed set is the same object every step).
 */
import type { ProtocolDriver } from './protocol.js';
import type { ToolDefinition } from './tool.js';

export interface Prompt {
  system: string;
  /** The tools offered, in the engine's order. */
  offered: readonly ToolDefinition[];
  fields: ReturnType<ProtocolDriver['requestFields']>;
}

export class PromptCache {
  private last: (Prompt & { driver: ProtocolDriver; allowed: ReadonlySet<string>; key: string }) | undefined;

  constructor(
    private readonly tools: readonly ToolDefinition[],
    private readonly maxSteps: number,
    private readonly instructions: string | undefined,
  ) {}

  for(driver: ProtocolDriver, allowed: ReadonlySet<string>): Prompt {
    const cached = this.last;
    if (cached && cached.driver === driver && cached.allowed === allowed) return cached;
    const offered = this.tools.filter((t) => allowed.has(t.name));
    const key = offered.map((t) => t.name).join(',');
    if (cached && cached.driver === driver && cached.key === key) {
      this.last = { ...cached, allowed };
    } else {
      const system = driver.systemPrompt(offered, this.maxSteps, this.instructions);
      this.last = { driver, allowed, key, system, offered, fields: driver.requestFields(offered, false) };
    }
    return this.last;
  }
}
