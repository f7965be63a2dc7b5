/**
 * The web console (`npm run bench -- console`): page latency p50/p95 over real HTTP, signed in as a
 * moderator through the fake Discord's OAuth2 side, against the console's own `/healthz` in the same
 * run (the server's floor). The bot runs with the console in its process on SQLite (the default
 * storage), with today's usage counters filled for 50 members in 10 channels (the overview reads 30
 * days: 90 counter reads a page) and the audit log as full as the settings record keeps it: 500 entries
 * (AUDIT_LOG_LIMIT). The issue asks for 100,000 lines; that needs the audit log's own append-only store,
 * which comes with the storage rework: `rules.auditPage` is the seam it will fill, with no page changing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { auditPage } from '../src/discord/rules/audit-pages.js';
import { AUDIT_LOG_LIMIT } from '../src/state/index.js';
import { startConsoleWorld } from '../test/console/console-world.js';
import { fmt, percentile, type BenchSection } from './stats.js';

const REQUESTS = 200;

/** Sign in over HTTP (no browser): the console's redirect, the fake's authorize page, the callback; the session cookie. */
async function signInCookie(url: string): Promise<string> {
  const login = await fetch(`${url}/auth/login`, { redirect: 'manual' });
  const bound = login.headers.get('set-cookie')!.split(';')[0]!;
  const authorized = await fetch(login.headers.get('location')!, { redirect: 'manual' });
  const back = await fetch(authorized.headers.get('location')!, { redirect: 'manual', headers: { cookie: bound } });
  return back.headers.getSetCookie().find((c) => c.startsWith('tw_session='))!.split(';')[0]!;
}

async function timed(url: string, cookie: string): Promise<{ p50: number; p95: number; bytes: number }> {
  const ms: number[] = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const start = performance.now();
    const response = await fetch(url, { headers: { cookie } });
    const body = await response.arrayBuffer();
    ms.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    bytes = body.byteLength;
  }
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), bytes };
}

export async function benchConsole(): Promise<BenchSection> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-console-'));
  const w = await startConsoleWorld({ keyvUrl: `sqlite://${path.join(dir, 'bench.sqlite')}` });
  try {
    const { guildId } = w;
    const limiter = w.h.app.services.usage.limiter;
    const limits = { runsPerHour: 0, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: 0, exempt: false };
    for (let m = 0; m < 50; m++) {
      const admitted = await limiter.admit({ guildId, channelId: `9000000000000000${m % 10}`, userId: `8000000000000000${String(m).padStart(2, '0')}` }, limits);
      if (!admitted.ok) throw new Error('the bench could not admit a run');
      await admitted.ticket.record({ promptTokens: 800 + m, completionTokens: 200, totalTokens: 1_000 + m }, 'gpt-4o-mini');
      await admitted.ticket.release();
    }
    const channels = [w.fake.defaults.channelId, w.fake.defaults.otherChannelId];
    // Straight into the record (a bench may): as many entries as it keeps, as the named writes word them.
    await w.h.storage.guildSettings.update(guildId, (s) => ({
      ...s,
      auditLog: Array.from({ length: AUDIT_LOG_LIMIT }, (_, i) => ({ at: Date.now() - (AUDIT_LOG_LIMIT - i) * 60_000, actorId: w.modId, actorName: 'Mod Erator', action: i % 2 ? 'tools.disable' : 'settings.model', detail: i % 2 ? `disabled \`calculate\` in <#${channels[i % 2]}>` : `set the model in <#${channels[0]}> to \`gpt-4o-mini\``, ...(i % 3 ? {} : { via: 'console' }) })),
    }));
    w.fake.oauth.signInAs(w.modId);
    const cookie = await signInCookie(w.url);
    const pages: Array<[string, string]> = [
      ['/healthz (the floor)', '/healthz'],
      ['overview (30 days, 50 members)', `/g/${guildId}`],
      [`audit log, first page of ${AUDIT_LOG_LIMIT}`, `/g/${guildId}/audit`],
      ['audit log filtered (channel and action)', `/g/${guildId}/audit?channel=${channels[1]}&action=tools`],
      [`audit CSV (all ${AUDIT_LOG_LIMIT})`, `/g/${guildId}/audit.csv`],
      ['policy page', `/g/${guildId}/policy`],
    ];
    const rows: BenchSection['rows'] = [];
    for (const [name, page] of pages) {
      const t = await timed(`${w.url}${page}`, cookie);
      rows.push({ page: name, 'p50 ms': fmt(t.p50), 'p95 ms': fmt(t.p95), 'KB': fmt(t.bytes / 1024) });
    }
    // The page read itself over 100,000 entries in memory: what paging and filtering cost once a store can hold them.
    const many = Array.from({ length: 100_000 }, (_, i) => ({ at: i, actorId: String(i % 50), action: i % 2 ? 'tools.disable' : 'settings.model', detail: `change ${i} in <#${channels[i % 2]}>` }));
    for (const [name, query] of [['first page', {}], ['filtered, no match (a full scan)', { actorId: '999', channelId: channels[1], action: 'tools' }]] as const) {
      const ms: number[] = [];
      for (let i = 0; i < 50; i++) {
        const start = performance.now();
        auditPage(many, { ...query, limit: 50 });
        ms.push(performance.now() - start);
      }
      rows.push({ page: `auditPage() over 100,000 entries in memory, ${name}`, 'p50 ms': fmt(percentile(ms, 50)), 'p95 ms': fmt(percentile(ms, 95)), 'KB': '' });
    }
    return {
      name: `Web console: page latency (${REQUESTS} requests each, signed in, SQLite, the bot in the same process)`,
      rows,
      notes: [
        `Each server page asks Discord (the fake, on loopback) for the member now (GET guild member) before anything else; the overview reads 30 days of counters (90 reads). The audit log holds ${AUDIT_LOG_LIMIT} entries, all the settings record keeps: 100,000 lines need the audit log's own store (rules.auditPage is its seam).`,
      ],
    };
  } finally {
    await w.h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
