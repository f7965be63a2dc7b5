/**
 * Past one process: runs per second with 1 and 2 shards (bot processes from source under the shard
 * manager, state on Redis) sending their REST calls through one REST proxy, the REST requests per
 * second the fake Discord receives (those bound by the global limit: their mean and their busiest
 * second), and what traces cost: the same 2-shard burst with traces exported to an in-process
 * OTLP/HTTP receiver, as runs per second and as the shard processes' CPU time per run. The same burst
 * without the proxy shows what the proxy prevents.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRestProxy } from '../app/rest-proxy.js';
import { createLogger } from '../src/logger.js';
import { createStorage } from '../src/state/index.js';
import { FakeOpenAIServer } from '../test/fakes/openai-server.js';
import { OtlpReceiver } from '../test/fakes/otlp-receiver.js';
import { askBurst, botEnv, scaleWorld, startHost } from '../test/ops/helpers/scale-rig.js';
import { REDIS_URL } from '../test/state/helpers/targets.js';
import { fmt, type BenchSection } from './stats.js';

const RUNS = 200;
const WARMUP = 20;

interface Setup {
  shards: 1 | 2;
  proxy: boolean;
  traces: boolean;
}

interface Figures {
  perSecond: number;
  /** From the first /ask of the burst to its last answer. */
  seconds: number;
  restPerSecond: number;
  restPeak: number;
  cpuMsPerRun: number;
  spans: number;
}

/** User plus system CPU time of a process so far, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function measure(setup: Setup): Promise<Figures> {
  const world = await scaleWorld({ members: RUNS + WARMUP, fake: { globalRateLimit: { mode: 'record' }, rateLimit: { mode: 'off' } } });
  const model = await FakeOpenAIServer.start();
  const receiver = setup.traces ? await OtlpReceiver.start() : undefined;
  const proxy = setup.proxy ? await startRestProxy({ apiBaseUrl: world.fake.apiUrl, host: '127.0.0.1', port: 0, logger: createLogger('silent') }) : undefined;
  const storage = await createStorage({ keyvUrl: REDIS_URL, historyTokenBudget: 8_000 }, { logger: () => {} });
  const threads: string[] = [];
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'threadwise-bench-scale-'));
  const host = startHost(botEnv(world.fake, model, {
    KEYV_URL: REDIS_URL, SHARDS: String(setup.shards), LOG_LEVEL: 'info',
    DISCORD_REST_PROXY: proxy ? proxy.apiUrl : 'off',
    ...(receiver ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } : {}),
  }), cwd);
  let figures: Omit<Figures, 'spans'>;
  try {
    await host.waitFor(/all shards are running/, 120_000);
    const pids = [...host.output().matchAll(/"pid":(\d+),"msg":"shard process started"/g)].map((m) => Number(m[1]));
    threads.push(...(await askBurst({ ...world, users: world.users.slice(0, WARMUP) }, model, WARMUP)).threads);
    world.fake.resetRestCalls();
    const cpuBefore = pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    const burst = await askBurst({ ...world, users: world.users.slice(WARMUP) }, model, RUNS);
    const cpu = pids.reduce((sum, pid) => sum + cpuMs(pid), 0) - cpuBefore;
    threads.push(...burst.threads);
    const limited = world.fake.restCalls.filter((c) => !c.exempt).length;
    figures = {
      perSecond: RUNS / burst.seconds, seconds: burst.seconds, restPerSecond: limited / burst.seconds, restPeak: world.fake.restPeakPerSecond({ exempt: false }),
      cpuMsPerRun: cpu / RUNS,
    };
  } finally {
    // Stopping sends the spans still waiting in the shards' batches.
    await host.stop('SIGTERM');
    fs.rmSync(cwd, { recursive: true, force: true });
    for (const id of threads) await storage.conversations.reset(id).catch(() => undefined);
    await storage.close();
    await proxy?.close();
    await receiver?.close();
    await world.fake.close();
    await model.close();
  }
  return { ...figures, spans: receiver?.spans.length ?? 0 };
}

export async function benchScale(): Promise<BenchSection> {
  const name = 'Scale: shards through one REST proxy, and what traces cost (bot processes against the fake Discord)';
  const redisUp = await createStorage({ keyvUrl: REDIS_URL, historyTokenBudget: 8_000 }, { timeouts: { connectMs: 1_000 }, logger: () => {} })
    .then((s) => s.close().then(() => true), () => false);
  if (!redisUp) return { name, rows: [], notes: [`Skipped: Redis is not reachable at ${REDIS_URL} (shards need shared storage).`] };
  const one = await measure({ shards: 1, proxy: true, traces: false });
  const two = await measure({ shards: 2, proxy: true, traces: false });
  const traced = await measure({ shards: 2, proxy: true, traces: true });
  const bare = await measure({ shards: 2, proxy: false, traces: false });
  const rest = (f: Figures) => `${fmt(f.restPerSecond, 0)} per s, busiest second ${f.restPeak}`;
  return {
    name,
    rows: [
      { measure: 'runs per second, 1 shard through the proxy (baseline)', value: fmt(one.perSecond, 1), ratio: '1.00' },
      { measure: 'runs per second, 2 shards through the proxy', value: fmt(two.perSecond, 1), ratio: fmt(two.perSecond / one.perSecond, 2) },
      { measure: `the burst of ${RUNS} from the first /ask to the last answer, 1 shard / 2 shards through the proxy`, value: `${fmt(one.seconds, 1)} / ${fmt(two.seconds, 1)} s`, ratio: fmt(two.seconds / one.seconds, 2) },
      { measure: 'REST requests at Discord bound by the global limit, 1 shard / 2 shards through the proxy', value: `${rest(one)} / ${rest(two)}`, ratio: '' },
      { measure: 'runs per second, 2 shards through the proxy, traces on (against traces off)', value: fmt(traced.perSecond, 1), ratio: fmt(traced.perSecond / two.perSecond, 2) },
      { measure: 'shard CPU time per run, traces off (baseline) / on', value: `${fmt(two.cpuMsPerRun, 1)} / ${fmt(traced.cpuMsPerRun, 1)} ms`, ratio: fmt(traced.cpuMsPerRun / two.cpuMsPerRun, 2) },
      { measure: 'spans exported per run, traces on', value: fmt(traced.spans / (RUNS + WARMUP), 1), ratio: '' },
      { measure: 'the same 2 shards without the proxy: runs per second; REST at Discord', value: `${fmt(bare.perSecond, 1)}; ${rest(bare)}`, ratio: fmt(bare.perSecond / two.perSecond, 2) },
    ],
    notes: [
      `${RUNS} one-step runs asked at once (after ${WARMUP} warm-up), each by its own member, over 6 channels in two guilds on different shards; a zero-latency model; bot processes from source (tsx) under the shard manager, state on Redis; the proxy and the fakes share the bench process and this machine's cores. ` +
        'A one-step run makes 5 REST calls, 2 of them bound by the global limit (the thread and the answer; the interaction callback and the two interaction-webhook edits are exempt), so through the proxy the bot tops out near 50 ÷ 2 = 25 runs per second whatever the number of shards: more shards add gateway capacity and CPU, not REST budget. ' +
        'Shard CPU time: user plus system time of the shard processes over the burst, from /proc. ' +
        'The burst\'s duration is the figure test/ops/scale.test.ts once bounded (300 /ask within 180 s); the test now asserts that every question is answered.',
    ],
  };
}
