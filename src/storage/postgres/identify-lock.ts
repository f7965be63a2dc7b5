/** The identify lock in PostgreSQL: a row per bot and bucket holding when its turn ends, taken in one statement. */
import pg from 'pg';
import type { IdentifyLock } from '../identify-lock.js';
import { createAll } from '../postgres-schema.js';

/** `name` tells bots apart that share a server (the bot's user id). */
export async function openPostgresIdentifyLock(url: string, name: string): Promise<IdentifyLock> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    // Two shards creating the table at the same moment: one wins, the other's error is harmless.
    await createAll((statement) => pool.query(statement), [`CREATE TABLE IF NOT EXISTS threadwise_identify_turns (
      name TEXT NOT NULL, bucket INTEGER NOT NULL, until TIMESTAMPTZ NOT NULL, PRIMARY KEY (name, bucket))`]);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return {
    async claim(bucket, ms) {
      // One statement: the row is taken only when absent or its turn is over, so two hosts cannot both win.
      const result = await pool.query(
        `INSERT INTO threadwise_identify_turns (name, bucket, until) VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond')
         ON CONFLICT (name, bucket) DO UPDATE SET until = EXCLUDED.until WHERE threadwise_identify_turns.until <= clock_timestamp()`,
        [name, bucket, ms],
      );
      return result.rowCount === 1;
    },
    async close() {
      await pool.end();
    },
  };
}
