/** The usage limiter's stores in process memory: the counters and a Map-backed run window. */
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { runWindowOver, windowOptions } from '../run-window.js';
import type { UsageStoreOptions, UsageStores } from '../usage-store.js';
import { memoryCounters } from './counters.js';

/** The counters and window of one process, empty. */
export async function openMemoryUsage(options: UsageStoreOptions): Promise<UsageStores> {
  return {
    counters: memoryCounters(),
    window: runWindowOver(new RateLimiterMemory(windowOptions(options.namespace, options.windowSeconds))),
    close: async () => {},
  };
}
