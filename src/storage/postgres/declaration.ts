/**
 * PostgreSQL (`postgres://`, `postgresql://`): shared by every process and host of the bot, so shards
 * can use it and hold the identify lock in it; full-text search is its own text search, and vectors
 * use pgvector where it exists.
 */
import type { BackendDeclaration } from '../backend-declaration.js';
import type { PostgresNative, PostgresTarget } from './types.js';

/** The PostgreSQL backend's declaration, listed in the registry. */
export const postgres: BackendDeclaration<PostgresTarget, PostgresNative> = {
  kind: 'postgres',
  label: 'PostgreSQL',
  schemes: ['postgres', 'postgresql'],
  spelled: ['postgres://'],
  example: 'postgres://user@host/db',
  supports: { sharing: true, identifyLock: true, knowledge: true },
  target: (url) => ({ kind: 'postgres', url }),
  folders: () => [],
  load: async () => (await import('./index.js')).postgresBackend,
};
