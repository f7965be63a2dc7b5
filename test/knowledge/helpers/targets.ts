/**
 * The index backends the knowledge tests run on. SQLite (a file in a temporary folder) is always there;
 * PostgreSQL is probed on 127.0.0.1 and, when absent, its suites are skipped with the reason printed,
 * like the state tests do, except under CI=true, where an absent server fails the file instead.
 * Each run uses its own table prefix, and the PostgreSQL tables are dropped when the file ends.
 */
import pg from 'pg';
import { openKnowledgeBase, type KnowledgeBase, type KnowledgeKind, type OpenKnowledgeOptions } from '../../../src/knowledge/index.js';
import { POSTGRES_URL, tempSqliteUrl } from '../../state/helpers/targets.js';

export interface KnowledgeTarget {
  kind: KnowledgeKind;
  url: string;
  available: boolean;
  reason?: string;
}

/** A table prefix no other run (or file in this run) uses. */
export function uniquePrefix(label: string): string {
  return `t_${label}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}_`.replace(/[^a-z0-9_]/g, '_');
}

async function probe(url: string): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return (error as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

/** SQLite and PostgreSQL, with PostgreSQL's availability probed. */
export async function knowledgeTargets(label: string): Promise<KnowledgeTarget[]> {
  const reason = await probe(POSTGRES_URL);
  if (reason) {
    if (process.env.CI === 'true') throw new Error(`[${label}] PostgreSQL at ${POSTGRES_URL} is required under CI=true: ${reason}`);
    console.warn(`[${label}] skipping postgres knowledge tests: ${POSTGRES_URL} is not available (${reason})`);
  }
  return [
    { kind: 'sqlite', url: tempSqliteUrl(label).url, available: true },
    { kind: 'postgres', url: POSTGRES_URL, available: !reason, reason },
  ];
}

/** Drop a run's PostgreSQL tables. */
export async function dropPostgresTables(prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS ${prefix}vectors, ${prefix}vector_versions, ${prefix}passages, ${prefix}documents`);
  } finally {
    await client.end();
  }
}

/** A knowledge base opened for a test, and how to clean up after it. */
export interface OpenedKnowledge {
  kb: KnowledgeBase;
  prefix: string;
  /** Close it and, on PostgreSQL, drop its tables. */
  cleanup(): Promise<void>;
}

/** Open a knowledge base on `target` with a fresh table prefix. */
export async function openOn(target: KnowledgeTarget, label: string, options: Partial<OpenKnowledgeOptions> = {}): Promise<OpenedKnowledge> {
  const prefix = uniquePrefix(label);
  const kb = await openKnowledgeBase(target.url, { baseDir: process.cwd(), prefix, logger: () => {}, ...options });
  return {
    kb,
    prefix,
    async cleanup() {
      await kb.close();
      if (target.kind === 'postgres') await dropPostgresTables(prefix);
    },
  };
}
