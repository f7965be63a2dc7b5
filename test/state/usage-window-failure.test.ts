/**
 * The run-hour window is the one part of admission kept by a library in its own table. When only it
 * cannot be read (its table gone, the counters and claims fine), admission must fail closed: the run
 * is refused with a storage message, and the claim taken a moment before is given back. On SQLite,
 * where one test can take that table away without touching anyone else's (PostgreSQL's and Redis's
 * windows live in places other tests share).
 */
import sqlite3 from 'sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { decide, type AdmissionRules } from '../../src/discord/turn/claim.js';
import { StorageError } from '../../src/errors.js';
import { silentLogger } from '../../src/logger.js';
import type { Backend } from '../../src/storage/registry.js';
import type { UsageLimiter } from '../../src/state/usage/index.js';
import { WINDOW_TABLE } from '../../src/storage/sql/usage-statements.js';
import { tempSqliteUrl, uniqueNamespace } from './helpers/targets.js';
import { limits, openLimiter } from './helpers/usage.js';

let opened: { backend: Backend; limiter: UsageLimiter } | undefined;
afterEach(async () => {
  await opened?.limiter.close();
  await opened?.backend.close();
  opened = undefined;
});

/** Take the window's table away on a connection of its own, as a broken or locked-out store would be. */
async function dropWindowTable(file: string): Promise<void> {
  const db = new sqlite3.Database(file);
  await new Promise<void>((resolve, reject) => db.run(`DROP TABLE ${WINDOW_TABLE}`, (error) => (error ? reject(error) : resolve())));
  await new Promise<void>((resolve) => db.close(() => resolve()));
}

describe('the run-hour window cannot be read', () => {
  it('the limiter refuses (fails closed) and gives back the slot it had taken', async () => {
    const { url } = tempSqliteUrl('window-fail');
    opened = await openLimiter(url, { namespace: uniqueNamespace('window-fail') });
    const { backend, limiter } = opened;
    const subject = { guildId: 'G1', channelId: 'C1', userId: 'U1' };
    expect((await limiter.admit(subject, limits({ runsPerHour: 5, concurrentRuns: 1 }))).ok).toBe(true);
    await dropWindowTable(backend.native.kind === 'sqlite' ? backend.native.file : '');

    await expect(limiter.admit({ ...subject, userId: 'U2' }, limits({ runsPerHour: 5, concurrentRuns: 1 }))).rejects.toBeInstanceOf(StorageError);
    // The counters still answer, and U2's only slot is free again: the refused request kept nothing.
    const after = await limiter.admit({ ...subject, userId: 'U2' }, limits({ runsPerHour: 0, concurrentRuns: 1 }));
    expect(after.ok).toBe(true);

    // What the member is told: nothing was started, because the limits could not be checked.
    const rules: AdmissionRules = { limiter, allowDms: false, questionMaxChars: 4_000, logger: silentLogger() };
    const scope = { guildId: 'G1', channelId: 'C1', categoryId: null, userId: 'U3', roleIds: [] };
    const decision = await decide(rules, scope, async () => limits({ runsPerHour: 5 }));
    expect(decision).toEqual({ ok: false, message: expect.stringMatching(/cannot check usage limits right now .* so I did not start anything/) });
  });
});
