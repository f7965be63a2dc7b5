/** The in-memory backend's shapes: where `memory:` points (nowhere), and its driver (none). */

/** Where a URL of this backend points. */
export interface MemoryTarget {
  readonly kind: 'memory';
}

/** The in-memory backend has no driver to share. */
export interface MemoryNative {
  readonly kind: 'memory';
}
