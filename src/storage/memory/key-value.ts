/**
 * In-process backend for tests and the terminal runner: a Keyv over a Map for single records and plain
 * arrays for logs. Nothing survives the process; every operation is atomic because it is synchronous.
 */
import Keyv from 'keyv';
import type { KeyValueBackend, LogEntry } from '../key-value.js';
import type { MemoryNative } from './types.js';

/** Open an empty in-memory backend. */
export function openMemoryBackend(): KeyValueBackend<MemoryNative> {
  const logs = new Map<string, string[]>();
  const keyv = new Keyv({ store: new Map(), throwOnErrors: true, namespace: undefined, useKeyPrefix: false });
  return {
    kind: 'memory',
    where: 'memory',
    keyv,
    native: { kind: 'memory' },
    async append(log, raw) {
      const entries = logs.get(log);
      if (entries) entries.push(raw);
      else logs.set(log, [raw]);
    },
    async read(log) {
      return (logs.get(log) ?? []).map((raw, index): LogEntry => ({ ref: String(index), raw }));
    },
    async replace(log, entry, raw) {
      const entries = logs.get(log);
      const index = Number(entry.ref);
      if (!entries || entries[index] !== entry.raw) return false;
      entries[index] = raw;
      return true;
    },
    async remove(log, upTo) {
      const entries = logs.get(log);
      if (!entries) return;
      const index = upTo ? Number(upTo.ref) : entries.length - 1;
      // Same rule as the server backends: only cut if the entry we saw is still where we saw it.
      if (upTo && entries[index] !== upTo.raw) return;
      entries.splice(0, index + 1);
      if (entries.length === 0) logs.delete(log);
    },
    async close() {
      logs.clear();
    },
  };
}
