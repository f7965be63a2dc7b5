/**
 * The event log behind `waitFor`: every observable change is appended, and waiters are woken by
 * appends instead of polling. A waiter first scans the log from its `since` mark, so an event that
 * happened just before the test started waiting is not missed.
 */
import type { FakeEvent } from './records.js';

interface Waiter {
  matches: (event: FakeEvent) => boolean;
  resolve: (event: FakeEvent) => void;
}

export interface WaitOptions {
  /** Only consider events at or after this mark (from `mark()`); default 0, the whole history. */
  since?: number;
  /** Shown in the timeout error. */
  description?: string;
}

export class EventLog {
  readonly events: FakeEvent[] = [];
  readonly #waiters = new Set<Waiter>();
  readonly #timers = new Set<NodeJS.Timeout>();

  constructor(private readonly dump: () => string) {}

  push(event: FakeEvent): void {
    this.events.push(event);
    for (const waiter of [...this.#waiters]) {
      if (waiter.matches(event)) {
        this.#waiters.delete(waiter);
        waiter.resolve(event);
      }
    }
  }

  /** A position in the log, for `waitFor(..., { since })`. */
  mark(): number {
    return this.events.length;
  }

  waitFor(predicate: (event: FakeEvent) => boolean, timeoutMs: number, options: WaitOptions = {}): Promise<FakeEvent> {
    const matches = (event: FakeEvent) => {
      try {
        return predicate(event);
      } catch {
        return false;
      }
    };
    const past = this.events.slice(options.since ?? 0).find(matches);
    if (past) return Promise.resolve(past);
    const stack = new Error().stack?.split('\n').slice(2, 5).join('\n') ?? '';
    return new Promise<FakeEvent>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#waiters.delete(waiter);
        const what = options.description ?? predicate.toString().slice(0, 300);
        reject(new Error(`fake-discord: timed out after ${timeoutMs} ms waiting for ${what}\n${stack}\n\n${this.dump()}`));
      }, timeoutMs);
      const waiter: Waiter = {
        matches,
        resolve: (event) => {
          clearTimeout(timer);
          this.#timers.delete(timer);
          resolve(event);
        },
      };
      this.#timers.add(timer);
      this.#waiters.add(waiter);
    });
  }

  /** Drops pending waiters' timers (they never resolve) so nothing keeps the process alive. */
  close(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    this.#waiters.clear();
  }
}

/** One line per event, for dumps. */
export function describeEvent(e: FakeEvent): string {
  switch (e.kind) {
    case 'message':
      return `message ${e.action} ${e.message.id} in ${e.message.channelId}: ${JSON.stringify(e.message.content.slice(0, 80))}`;
    case 'callback':
      return `callback type ${e.callback.type} for interaction ${e.interaction.id} → ${e.callback.status} after ${e.callback.latencyMs.toFixed(1)} ms`;
    case 'interaction':
      return `interaction ${e.action} ${e.interaction.id} (${e.interaction.commandName ?? e.interaction.customId ?? e.interaction.type})`;
    case 'thread':
      return `thread ${e.action} ${e.channel.id} "${e.channel.name}" archived=${e.channel.thread?.archived} locked=${e.channel.thread?.locked}`;
    case 'rest':
      return `rest ${e.call.route} → ${e.call.status}${e.call.errorCode ? ` (code ${e.call.errorCode})` : ''}`;
    case 'typing':
      return `typing in ${e.channelId}`;
    case 'gateway':
      return `gateway ${e.action} ${e.sessionId}${e.detail === undefined ? '' : ` ${JSON.stringify(e.detail)}`}`;
  }
}
