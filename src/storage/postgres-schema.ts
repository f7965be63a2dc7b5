/**
 * Creating PostgreSQL tables and indexes when several processes start at once. `CREATE ... IF NOT
 * EXISTS` does not hold against a concurrent creator: the process that loses the race gets a unique
 * violation on the catalog (23505) or "already exists" (42P07), though what it asked for now exists.
 */

/** Whether `error` is only the loser's side of two processes creating the same table or index. */
export function lostCreateRace(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code);
  return code === '23505' || code === '42P07';
}

/** Run schema statements in order; another process creating the same thing at the same moment is no error. */
export async function createAll(run: (statement: string) => Promise<unknown>, statements: Iterable<string>): Promise<void> {
  for (const statement of statements) {
    try {
      await run(statement);
    } catch (error) {
      if (!lostCreateRace(error)) throw error;
    }
  }
}
