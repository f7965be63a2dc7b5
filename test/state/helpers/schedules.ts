/** Cleaning what the schedule store and the occurrence claims wrote under a namespace on the shared servers. */
import { DEFAULT_TIMEOUTS } from '../../../src/storage/key-value.js';
import { openBackend } from '../../../src/storage/open.js';
import { MARK_TABLE, markSchema } from '../../../src/storage/sql/mark-statements.js';
import { purgeNamespace } from './targets.js';

/** Remove a namespace's schedule records and marks from Redis or PostgreSQL (SQLite and memory go with their test). */
export async function purgeSchedules(url: string, namespace: string): Promise<void> {
  if (!/^(redis|postgres)/.test(url)) return;
  const backend = await openBackend(url, process.cwd(), { timeouts: { ...DEFAULT_TIMEOUTS, connectMs: 2_000 }, onBackgroundError: () => {} });
  try {
    await purgeNamespace(backend, namespace);
    if (backend.native.kind === 'postgres') {
      await backend.native.pool.query(markSchema('BIGINT')).catch(() => undefined);
      await backend.native.pool.query(`DELETE FROM ${MARK_TABLE} WHERE ns = $1`, [namespace]);
    }
  } finally {
    await backend.close();
  }
}
