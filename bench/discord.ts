/**
 * The bot under load, against the fake Discord and fake model server (both local):
 * - acknowledgement latency (interaction dispatched → deferred callback) with 50 runs in flight,
 *   against the same measure on an idle bot in the same process run;
 * - the same with usage limits checked on every request;
 * - REST calls per 3-step run, against posting one message per step event (the naive view), the same
 *   run asked by a mention against `/ask`, and
 *   for a streamed 1,500-character answer against the same answer sent whole;
 * - the time from the answer's first token at the model to its first text in Discord.
 */
import { FakeDiscord } from '../test/fake-discord/index.js';
import { FakeOpenAIServer, type ScriptedReply } from '../test/fakes/openai-server.js';
import { startHarness } from '../test/discord/harness.js';
import { fmt, median, percentile, type BenchSection } from './stats.js';

/** A 3-step run: two tool calls, then the answer. */
function threeStepRun(delayMs: number): ScriptedReply[] {
  return [
    { content: 'First I compute.', toolCalls: [{ name: 'calculate', arguments: { expression: '2 + 2' } }], delayMs },
    { content: 'Now the time.', toolCalls: [{ name: 'current_time', arguments: { timezone: 'UTC' } }], delayMs },
    { content: 'Done: 4.', delayMs },
  ];
}

/** Limits that never refuse here but are checked on every request (on), or none at all (off: 0 = no limit). */
const LIMITS = {
  on: { USER_RUNS_PER_HOUR: '10000', USER_CONCURRENT_RUNS: '100', USER_DAILY_TOKENS: '1000000000', GUILD_DAILY_TOKENS: '1000000000' },
  off: { USER_RUNS_PER_HOUR: '0', USER_CONCURRENT_RUNS: '0', USER_DAILY_TOKENS: '0', GUILD_DAILY_TOKENS: '0' },
};

async function ackLatencies(inFlight: number, samples: number, limits: keyof typeof LIMITS = 'off'): Promise<number[]> {
  const fake = await FakeDiscord.start({ log: () => undefined, rateLimit: { mode: 'off' } });
  const model = await FakeOpenAIServer.start();
  const h = await startHarness({ stepLogIntervalMs: 1200, env: LIMITS[limits] }, { fake, model });
  try {
    // Background load: `inFlight` runs whose model calls are slow, so they stay in flight.
    for (let i = 0; i < inFlight; i++) model.script(...threeStepRun(3_000));
    const load = Array.from({ length: inFlight }, (_, i) => fake.sendSlashCommand({ name: 'ask', options: { question: `load ${i}` } }));
    await fake.waitFor(() => load.every((i) => i.acknowledged), 30_000);
    await new Promise((r) => setTimeout(r, 300));
    const latencies: number[] = [];
    const warmup = 20; // the first interactions pay for JIT compilation; they are not kept
    for (let i = 0; i < samples + warmup; i++) {
      model.script({ content: 'quick' });
      const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: `sample ${i}` } });
      await fake.waitForCallback(interaction.id, 10_000);
      if (i >= warmup) latencies.push(interaction.ackLatencyMs!);
    }
    return latencies;
  } finally {
    await h.close({ keepFakes: true });
    await fake.close();
    await model.close();
  }
}

/** A 3-step run whose answer is 1,500 characters, streamed at a steady pace or sent whole. */
function threeStepLongAnswer(streamed: boolean): ScriptedReply[] {
  const answer = Array.from({ length: 30 }, (_, i) => `Sentence ${String(i).padStart(2, '0')} of the answer, written out.`).join(' ').slice(0, 1_500);
  const stream = streamed ? { paceMs: 4 } : { plainJson: true };
  return [
    { content: 'First I compute.', toolCalls: [{ name: 'calculate', arguments: { expression: '2 + 2' } }], stream },
    { content: 'Now the time.', toolCalls: [{ name: 'current_time', arguments: { timezone: 'UTC' } }], stream },
    { content: answer, stream },
  ];
}

/** Ask the measured question by `/ask`, or by a mention in the channel (the bot opens a thread on the message). */
type AskBy = 'ask' | 'mention';

async function restCallsPerRun(replies: ScriptedReply[] = threeStepRun(0), by: AskBy = 'ask'): Promise<{ ours: number; naive: number; routes: Record<string, number>; firstVisibleMs: number }> {
  const fake = await FakeDiscord.start({ log: () => undefined });
  const model = await FakeOpenAIServer.start();
  const h = await startHarness({ stepLogIntervalMs: 1200 }, { fake, model });
  try {
    // One run first, so the calculator's workers are warm and the measured run is a typical one.
    model.script(...replies.map((r) => (typeof r === 'function' ? r : { ...r })));
    const warm = fake.sendSlashCommand({ name: 'ask', options: { question: 'Warm up: 2 + 2?' } });
    await fake.waitFor(() => fake.message(warm.originalMessageId ?? '')?.content.includes('Full answer') ?? false, 15_000);
    await new Promise((r) => setTimeout(r, 300)); // the warm-up's last calls land before counting starts
    model.script(...replies);
    fake.resetRestCalls();
    if (by === 'ask') {
      const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'What is 2 + 2, and what time is it?' } });
      await fake.waitFor(() => fake.message(interaction.originalMessageId ?? '')?.content.includes('Full answer') ?? false, 15_000);
    } else {
      const since = fake.mark();
      fake.sendMessage({ content: 'What is 2 + 2, and what time is it?', mentionBot: true });
      await fake.waitForMessage((m) => m.content.startsWith('### Answer') && !m.content.includes('still writing'), 15_000, { since });
    }
    await new Promise((r) => setTimeout(r, 300)); // let the last call's record land
    const counts = fake.restCallCounts();
    const ours = Object.values(counts).reduce((a, b) => a + b, 0);
    // Naive view: defer, reply, thread, one message per thought/action/observation (2 steps × 3), answer.
    const naive = 3 + 2 * 3 + 1 + 1;
    // From the answer's first token at the model (its request arrived, the stream starts at once) to the
    // first answer text in Discord (the answer message's creation).
    const answerMessage = fake.botMessages().filter((m) => m.content.startsWith('### Answer')).at(-1);
    const firstVisibleMs = answerMessage ? answerMessage.createdAt - model.requests.at(-1)!.at : NaN;
    return { ours, naive, routes: counts, firstVisibleMs };
  } finally {
    await h.close({ keepFakes: true });
    await fake.close();
    await model.close();
  }
}

export async function benchDiscord(): Promise<BenchSection> {
  const idle = await ackLatencies(0, 100);
  const loaded = await ackLatencies(50, 100);
  const limited = await ackLatencies(50, 100, 'on');
  const rest = await restCallsPerRun();
  const byMention = await restCallsPerRun(threeStepRun(0), 'mention');
  // Step-log coalescing depends on timing, so a single run can differ by a call: medians of five.
  const rounds = 5;
  const wholeRuns: Awaited<ReturnType<typeof restCallsPerRun>>[] = [];
  const streamedRuns: Awaited<ReturnType<typeof restCallsPerRun>>[] = [];
  for (let i = 0; i < rounds; i++) {
    wholeRuns.push(await restCallsPerRun(threeStepLongAnswer(false)));
    streamedRuns.push(await restCallsPerRun(threeStepLongAnswer(true)));
  }
  const whole = { ...wholeRuns[0]!, ours: median(wholeRuns.map((r) => r.ours)) };
  const streamed = { ...streamedRuns[0]!, ours: median(streamedRuns.map((r) => r.ours)), firstVisibleMs: median(streamedRuns.map((r) => r.firstVisibleMs)) };
  const firstVisibleMax = Math.max(...streamedRuns.map((r) => r.firstVisibleMs));
  return {
    name: 'Discord: acknowledgement latency and REST calls (fake Discord and model server on 127.0.0.1)',
    rows: [
      { measure: 'ack latency p50, idle bot (baseline)', value: `${fmt(median(idle))} ms`, ratio: '1.00' },
      { measure: 'ack latency p99, idle bot', value: `${fmt(percentile(idle, 99))} ms`, ratio: fmt(percentile(idle, 99) / median(idle), 2) },
      { measure: 'ack latency p50, 50 runs in flight', value: `${fmt(median(loaded))} ms`, ratio: fmt(median(loaded) / median(idle), 2) },
      { measure: 'ack latency p99, 50 runs in flight, no limits (goal < 100 ms)', value: `${fmt(percentile(loaded, 99))} ms`, ratio: fmt(percentile(loaded, 99) / median(idle), 2) },
      { measure: 'ack latency p50, 50 runs in flight, limits checked', value: `${fmt(median(limited))} ms`, ratio: fmt(median(limited) / median(idle), 2) },
      { measure: 'ack latency p99, 50 runs in flight, limits checked', value: `${fmt(percentile(limited, 99))} ms`, ratio: fmt(percentile(limited, 99) / percentile(loaded, 99), 2) + ' of no limits' },
      { measure: 'REST calls per 3-step run, one message per step event (baseline)', value: rest.naive, ratio: '1.00' },
      { measure: 'REST calls per 3-step run, threadwise', value: rest.ours, ratio: fmt(rest.ours / rest.naive, 2) },
      { measure: 'REST calls per 3-step run asked by /ask (baseline)', value: rest.ours, ratio: '1.00' },
      { measure: 'REST calls per 3-step run asked by a mention in the channel (goal: no more than /ask)', value: byMention.ours, ratio: fmt(byMention.ours / rest.ours, 2) },
      { measure: `REST calls per 3-step run, 1,500-character answer sent whole (baseline; median of ${rounds})`, value: whole.ours, ratio: '1.00' },
      { measure: `REST calls per 3-step run, 1,500-character answer streamed (goal: at most 2 more; median of ${rounds})`, value: streamed.ours, ratio: `${fmt(streamed.ours / whole.ours, 2)} (${streamed.ours - whole.ours >= 0 ? '+' : ''}${streamed.ours - whole.ours})` },
      { measure: `first answer token at the model → first answer text in Discord (goal < 1.2 s; median of ${rounds}, max ${fmt(firstVisibleMax)} ms)`, value: `${fmt(streamed.firstVisibleMs)} ms`, ratio: '' },
    ],
    notes: [
      `REST calls by route for one 3-step run: ${Object.entries(rest.routes).map(([r, n]) => `${r} ×${n}`).join(', ')}`,
      `The same run asked by a mention: ${Object.entries(byMention.routes).map(([r, n]) => `${r} ×${n}`).join(', ')}`,
      `Streamed (1,500 characters at 8 per 4 ms, about 0.75 s): ${Object.entries(streamed.routes).map(([r, n]) => `${r} ×${n}`).join(', ')}`,
      'First answer text: the native protocol\'s answer text is provisional until the reply ends (it may still turn out to be the thought before a tool call), and is held back 0.5 s before it is shown; that hold is most of the figure.',
      'Limits checked: every request is admitted through the usage limiter (memory storage here), with limits high enough never to refuse; no limits: all four are 0.',
    ],
  };
}
