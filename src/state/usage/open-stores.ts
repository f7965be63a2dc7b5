/**
 * The limiter's stores for the backend's kind: the claims and counters (counter-store.ts) and the
 * hourly run window, each built on the backend's own client (SQLite: a connection of its own).
 */
import type { Backend } from '../../storage/registry.js';
import { guarded } from '../../storage/storage-failure.js';
import type { CounterStore } from './counter-store.js';
import { memoryCounters } from './memory-counters.js';
import { openRunWindow, type RunWindow, type WindowStore } from './run-window.js';

/** Where the limiter's stores live. */
export interface StoreOptions {
  backend: Backend;
  /** Key prefix, as for the other stores. */
  namespace: string;
  /** The run window's length; an hour except in tests. */
  windowSeconds?: number;
}

/** The counter store and run window for the backend's kind. */
export async function openStores(options: StoreOptions): Promise<{ counters: CounterStore; window: RunWindow; close(): Promise<void> }> {
  const { backend, namespace } = options;
  const native = backend.native;
  const windowOf = (store: WindowStore) => openRunWindow(store, namespace, options.windowSeconds);
  switch (native.kind) {
    case 'memory':
      return { counters: memoryCounters(), window: await windowOf({ kind: 'memory' }), close: async () => {} };
    case 'redis': {
      const { redisCounters } = await import('./redis-counters.js');
      return {
        counters: redisCounters(native.client, namespace, backend.where, native.commandMs),
        window: await windowOf({ kind: 'redis', client: native.client }),
        close: async () => {},
      };
    }
    case 'postgres': {
      const { postgresCounters } = await import('./postgres-counters.js');
      return {
        counters: await postgresCounters(native.pool, namespace, backend.where),
        window: await guarded('postgres', backend.where, 'usage setup', () => windowOf({ kind: 'postgres', pool: native.pool })),
        close: async () => {},
      };
    }
    case 'sqlite': {
      const [{ SqliteConnection }, { sqliteCounters }] = await Promise.all([import('../../storage/sqlite-connection.js'), import('./sqlite-counters.js')]);
      const conn = await guarded('sqlite', backend.where, 'usage connection', () =>
        SqliteConnection.open(native.file, { busyMs: native.busyMs, synchronousNormal: true }));
      try {
        const counters = await sqliteCounters(conn, namespace, backend.where);
        const window = await guarded('sqlite', backend.where, 'usage setup', () => windowOf({ kind: 'sqlite', conn }));
        return {
          counters,
          window,
          close: () => {
            window.stop();
            return conn.close();
          },
        };
      } catch (error) {
        await conn.close().catch(() => undefined);
        throw error;
      }
    }
  }
}
