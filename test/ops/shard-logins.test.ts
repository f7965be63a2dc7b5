import { afterEach, describe, expect, it } from 'vitest';
import type { BotProcess } from './helpers/bot-process.js';
import { botEnv, startHost } from './helpers/scale-rig.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { POSTGRES_URL, REDIS_URL, serverTarget } from '../state/helpers/targets.js';

let fake: FakeDiscord | undefined;
let model: FakeOpenAIServer | undefined;
const hosts: BotProcess[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.stop('SIGKILL')));
  await fake?.close();
  await model?.close();
  fake = model = undefined;
});

/** Gaps between consecutive IDENTIFYs, in arrival order. */
function gaps(): number[] {
  const times = fake!.identifyTimes.map((i) => i.at).sort((a, b) => a - b);
  return times.slice(1).map((t, i) => t - times[i]!);
}

describe('logins across hosts (max_concurrency, through the shared store)', () => {
  for (const [kind, url] of [['redis', REDIS_URL], ['postgres', POSTGRES_URL]] as const) {
    it(`4 shards with max_concurrency 1, started on two hosts at once, identify at least 5 s apart (${kind})`, async (ctx) => {
      if (!(await serverTarget('shard-logins', kind, url)).available) return ctx.skip();
      // A fresh bot id per run names the lock: other runs on the shared server do not wait for this one.
      fake = await FakeDiscord.start({ log: () => undefined, shards: 4, maxConcurrency: 1, idBaseTime: Date.now() });
      model = await FakeOpenAIServer.start();
      const env = botEnv(fake, model, { KEYV_URL: url, SHARD_COUNT: '4' });
      hosts.push(startHost({ ...env, SHARD_IDS: '0-1' }), startHost({ ...env, SHARD_IDS: '2,3' }));
      await Promise.all(hosts.map((h) => h.waitFor(/all shards are running/, 120_000)));
      expect(fake.identifyTimes.map((i) => i.shard[0]).sort()).toEqual([0, 1, 2, 3]);
      for (const gap of gaps()) expect(gap).toBeGreaterThanOrEqual(5_000);
    }, 180_000);
  }

  it('a shard that keeps dying is started again after a longer wait each time, and its new login waits its turn too', async (ctx) => {
    if (!(await serverTarget('shard-logins', 'redis', REDIS_URL)).available) return ctx.skip();
    fake = await FakeDiscord.start({ log: () => undefined, shards: 2, maxConcurrency: 1, idBaseTime: Date.now() });
    model = await FakeOpenAIServer.start();
    const host = startHost(botEnv(fake, model, { KEYV_URL: REDIS_URL, SHARDS: '2' }));
    hosts.push(host);
    await host.waitFor(/all shards are running/, 90_000);
    const lastPid = () => Number([...host.output().matchAll(/"shard":1,"pid":(\d+),"msg":"shard process started"/g)].at(-1)![1]);
    for (const wait of [2_000, 4_000]) {
      const from = host.output().length;
      const pid = lastPid();
      process.kill(pid, 'SIGKILL');
      await host.waitFor(new RegExp(`"shard":1,"pid":${pid},"exitCode":null,"signal":"SIGKILL","restartInMs":${wait},"msg":"shard process ended; the manager starts a new one"`), 10_000, from);
      await host.waitFor(/"shard":1,"msg":"shard connected to Discord"/, 60_000, from);
    }
    expect(fake.identifyTimes.filter((i) => i.shard[0] === 1)).toHaveLength(3);
    for (const gap of gaps()) expect(gap).toBeGreaterThanOrEqual(5_000);
  }, 180_000);
});
