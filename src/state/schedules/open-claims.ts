/** The occurrence claims for the backend's kind, each on the backend's own client (SQLite: a connection of its own). */
import type { Backend } from '../../storage/registry.js';
import { memoryClaims, type OccurrenceClaims } from './occurrence-claims.js';

export async function openClaims(backend: Backend, namespace: string): Promise<OccurrenceClaims> {
  const native = backend.native;
  switch (native.kind) {
    case 'memory':
      return memoryClaims();
    case 'redis':
      return (await import('./redis-claims.js')).redisClaims(native.client, namespace, backend.where, native.commandMs);
    case 'postgres':
      return (await import('./postgres-claims.js')).postgresClaims(native.pool, namespace, backend.where);
    case 'sqlite':
      return (await import('./sqlite-claims.js')).sqliteClaims(native.file, native.busyMs, namespace, backend.where);
  }
}
