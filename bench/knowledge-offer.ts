/**
 * What offering `search_knowledge` only where a server has documents costs per step. The engine asks
 * the tool policy before every step; the composition root wraps the policy with a "has documents"
 * check. Three ways, taking turns call by call on the same storage: the tool policy alone (the baseline,
 * what every step paid before), the policy plus an uncached `hasDocuments` query, and the policy plus
 * the cached answer (`createDocumentPresence`, 30 s, forgotten on add/remove) that the bot uses. On
 * SQLite (one temporary file for settings and documents, as with the default KEYV_URL) and PostgreSQL
 * (127.0.0.1, when reachable). Run alone with `npx tsx bench/knowledge-offer.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createDocumentPresence } from '../src/knowledge/document-presence.js';
import { openKnowledgeBase, type KnowledgeBase } from '../src/knowledge/index.js';
import { silentLogger } from '../src/logger.js';
import { offerOnlyWhere, type AllowedTools, type PolicyTool, type RunScope } from '../src/policy/index.js';
import { createToolPolicy } from '../src/discord/rules/place-rules.js';
import { createStorage, type Storage } from '../src/state/index.js';
import { fmt, percentile, type BenchSection } from './stats.js';
import { dropKnowledgeTables, postgresReachable } from './knowledge.js';

const CALLS = 2_000;
const POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOOLS: PolicyTool[] = [{ name: 'calculate' }, { name: 'wikipedia' }, { name: 'current_time' }, { name: 'read_url', network: true }, { name: 'search_knowledge' }];
const scope: RunScope = { guildId: '123456789012345678', channelId: '2', categoryId: null, userId: '3', roleIds: ['4'] };

async function measure(storage: Storage, kb: KnowledgeBase, backend: string): Promise<BenchSection['rows']> {
  const logger = silentLogger();
  await storage.guildSettings.update(scope.guildId!, (s) => ({ ...s, toolRules: [{ tool: 'read_url', allow: true, channelId: '2' }] }));
  await kb.add(scope.guildId!, { source: 'faq.md', format: 'markdown', content: '# FAQ\n\nRaid night is on Friday.' });
  const policy = createToolPolicy((id) => storage.guildSettings.get(id), TOOLS, logger);
  const ways: Array<[string, AllowedTools]> = [
    ['tool policy alone (baseline: every step before)', policy],
    ['policy + hasDocuments() every step (uncached)', offerOnlyWhere(policy, 'search_knowledge', (g) => kb.hasDocuments(g), logger)],
    ['policy + cached presence (what the bot runs)', offerOnlyWhere(policy, 'search_knowledge', createDocumentPresence(kb).has, logger)],
  ];
  const times: number[][] = ways.map(() => []);
  for (let i = 0; i < CALLS + 100; i += 1) {
    for (const [w, [, allowed]] of ways.entries()) {
      const started = performance.now();
      const names = await allowed(scope);
      const took = performance.now() - started;
      if (!names.has('search_knowledge')) throw new Error('the tool should be offered here');
      if (i >= 100) times[w]!.push(took); // the first 100 warm up connections and caches
    }
  }
  const p = (values: number[], q: number) => percentile(values, q) * 1_000;
  const base = times[0]!;
  return ways.map(([name], w) => ({
    backend,
    case: name,
    'µs per step (p50 / p95)': `${fmt(p(times[w]!, 50), 0)} / ${fmt(p(times[w]!, 95), 0)}`,
    'ours / baseline (p50)': w === 0 ? '1.00' : fmt(p(times[w]!, 50) / p(base, 50), 2),
  }));
}

/** The section: one set of rows per reachable database. */
export async function benchKnowledgeOffer(): Promise<BenchSection> {
  const rows: BenchSection['rows'] = [];
  const notes: string[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-offer-'));
  const namespace = `bench-offer-${process.pid}`;
  try {
    const url = `sqlite://${path.join(dir, 'threadwise.sqlite')}`;
    const storage = await createStorage({ keyvUrl: url, historyTokenBudget: 8_000 }, { namespace, baseDir: dir, logger: () => {} });
    const kb = await openKnowledgeBase(url, { baseDir: dir });
    try {
      rows.push(...(await measure(storage, kb, 'sqlite')));
    } finally {
      await kb.close();
      await storage.close();
    }
    if (await postgresReachable()) {
      const prefix = `bench_offer_${process.pid}_`;
      const pgStorage = await createStorage({ keyvUrl: POSTGRES_URL, historyTokenBudget: 8_000 }, { namespace, baseDir: dir, logger: () => {} });
      const pgKb = await openKnowledgeBase(POSTGRES_URL, { baseDir: dir, prefix });
      try {
        rows.push(...(await measure(pgStorage, pgKb, 'postgres')));
      } finally {
        await pgKb.close();
        await pgStorage.close();
        await dropKnowledgeTables(prefix);
      }
    } else {
      notes.push(`PostgreSQL at ${POSTGRES_URL} not reachable: skipped.`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  notes.unshift(
    `${CALLS} calls of the allowed-tools function for one server with one document, the three ways taking turns call by call. ` +
    'The policy reads the guild settings from storage on every call (so a moderator\'s change applies at the next step); the wrapper adds the "has documents" check only when the policy allows search_knowledge.',
  );
  return { name: 'Knowledge base: offering search_knowledge only where there are documents, per step', rows, notes };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { printSection } = await import('./stats.js');
  printSection(await benchKnowledgeOffer());
  process.exit(0);
}
