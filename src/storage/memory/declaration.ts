/**
 * `memory:`: everything in this process, for tests and the terminal runner. Nothing survives the
 * process, so no other process can share it; a knowledge index or past threads under `memory:` are a
 * private in-memory SQLite database.
 */
import type { BackendDeclaration } from '../backend-declaration.js';
import type { MemoryNative, MemoryTarget } from './types.js';

/** The `memory:` backend's declaration, listed in the registry. */
export const memory: BackendDeclaration<MemoryTarget, MemoryNative> = {
  kind: 'memory',
  label: 'memory',
  schemes: ['memory'],
  spelled: ['memory:'],
  example: 'memory:',
  supports: { sharing: { why: 'memory: lives and dies inside one process' }, identifyLock: false, knowledge: true },
  target: () => ({ kind: 'memory' }),
  folders: () => [],
  load: async () => (await import('./index.js')).memoryBackend,
};
