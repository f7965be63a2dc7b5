/**
 * Daily token budgets under concurrency, end to end: the real discord.js client against the fake
 * Discord, the real openai SDK against the fake model server, the production limits otherwise. A
 * budget may be crossed by at most one model call per run in flight, however many members ask at
 * the same moment, and a server that reports no usage is counted with the local tokenizer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeInteraction } from '../fake-discord/index.js';
import type { ScriptedMessage as ScriptedReply } from '../fakes/openai-stream.js';
import { replyTo, startModeration, type ModerationWorld } from '../policy/discord-helpers.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

/** Every model call asks for a tool again and reports 6,000 tokens: a run would go on until a limit ends it. */
const CALL_TOKENS = 6_000;
const toolCall = (usage: { prompt: number; completion: number } = { prompt: 5_000, completion: 1_000 }, extra: Partial<ScriptedReply> = {}): ScriptedReply =>
  ({ content: 'Checking the time again.', toolCalls: [{ name: 'current_time', arguments: { timezone: 'UTC' } }], usage, delayMs: 300, ...extra });

const STOPPED = /^⏹️ Stopped: (this server's|your) daily model-token budget is spent/;

/** Members of the fake server, each able to /ask. */
function members(w: ModerationWorld, count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const user = w.fake.addUser({ username: `member${i}` });
    w.fake.addMember({ userId: user.id });
    return user.id;
  });
}

/** Wait until every started run (one thread each) has posted its last word: an answer or the budget's stop. */
async function settled(w: ModerationWorld, asks: FakeInteraction[]): Promise<{ started: number; refusals: string[] }> {
  const replies = await Promise.all(asks.map((i) => replyTo(w.fake, i, 10_000)));
  const refusals = replies.map((m) => m.content).filter((c) => c.includes('Nothing was started.'));
  const started = asks.length - refusals.length;
  // Every admitted question opened a thread; a refused one none.
  await w.fake.waitFor(() => w!.fake.threadsIn(w!.fake.defaults.channelId).length === started, 10_000);
  await w.fake.waitFor(() => w!.fake.botMessages().filter((m) => STOPPED.test(m.content) || m.content.startsWith('### Answer')).length >= started, 20_000);
  return { started, refusals };
}

describe('daily token budgets under concurrency', () => {
  it('six members asking at once under a 10,000-token server cap spend at most the cap plus one 6,000-token call per run in flight', async () => {
    // The server cap is the one under test; the member cap is lifted so that only the server's budget decides.
    w = await startModeration({ env: { GUILD_DAILY_TOKENS: '10000', USER_DAILY_TOKENS: '0' } });
    w.model.script(...Array.from({ length: 60 }, () => toolCall()));
    const asks = members(w, 6).map((userId, i) => w!.fake.sendSlashCommand({ name: 'ask', options: { question: `What time is it, member ${i}?` }, userId }));
    const { started, refusals } = await settled(w, asks);

    const spent = w.model.requests.length * CALL_TOKENS;
    expect(spent).toBeLessThanOrEqual(10_000 + CALL_TOKENS * started);
    // Admission set tokens aside for the first runs: the rest could not all count on the same remainder.
    expect(started).toBeLessThan(6);
    for (const refusal of refusals) expect(refusal).toMatch(/This server has used [\d,]+ of its 10,000 model tokens for today\./);
    // Each call was counted as it happened, in the shared counters.
    const report = await w.h.app.services.usage.limiter.guildUsage(w.guildId, 10_000);
    expect(report.today.totalTokens).toBe(spent);
    // The runs that were stopped say which budget and when it resets.
    const stops = w.fake.botMessages().filter((m) => STOPPED.test(m.content));
    expect(stops.length).toBeGreaterThan(0);
    for (const stop of stops) expect(stop.content).toMatch(/this server's daily model-token budget is spent .* It resets <t:\d+:R>/);
    // Nothing more is admitted today.
    const late = w.fake.sendSlashCommand({ name: 'ask', options: { question: 'And me?' } });
    expect((await replyTo(w.fake, late)).content).toMatch(/This server has used [\d,]+ of its 10,000 model tokens/);
  }, 60_000);

  it('one member\'s two runs at once stay within the member\'s own daily cap plus one call each', async () => {
    // The member cap is the one under test (USER_CONCURRENT_RUNS stays at its default of 2).
    w = await startModeration({ env: { USER_DAILY_TOKENS: '10000' } });
    w.model.script(...Array.from({ length: 30 }, () => toolCall()));
    const asks = [0, 1].map((i) => w!.fake.sendSlashCommand({ name: 'ask', options: { question: `Question ${i}: what time is it?` } }));
    const { started } = await settled(w, asks);
    expect(started).toBe(2);
    const spent = w.model.requests.length * CALL_TOKENS;
    expect(spent).toBeLessThanOrEqual(10_000 + CALL_TOKENS * 2);
    const usage = await w.h.app.services.usage.limiter.memberUsage({ guildId: w.guildId, userId: w.fake.defaults.userId }, { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 10_000, guildDailyTokens: 2_000_000, exempt: false });
    expect(usage.today.totalTokens).toBe(spent);
    expect(w.fake.botMessages().some((m) => /^⏹️ Stopped: your daily model-token budget is spent/.test(m.content))).toBe(true);
  }, 60_000);

  for (const [name, reply] of [
    ['reports 0 tokens', toolCall({ prompt: 0, completion: 0 })],
    ['reports no usage at all', toolCall(undefined, { usage: undefined, stream: { usage: 'never' } })],
  ] as const) {
    it(`a model server that ${name} is still capped: its calls are counted with the local tokenizer`, async () => {
      // A cap smaller than one request (the system prompt and the tool schemas alone are larger), so the first call crosses it.
      w = await startModeration({ env: { USER_DAILY_TOKENS: '500' } });
      w.model.script(...Array.from({ length: 10 }, () => reply));
      const ask = w.fake.sendSlashCommand({ name: 'ask', options: { question: 'What time is it?' } });
      await settled(w, [ask]);
      const usage = await w.h.app.services.usage.limiter.memberUsage({ guildId: w.guildId, userId: w.fake.defaults.userId }, { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 500, guildDailyTokens: 2_000_000, exempt: false });
      expect(w.model.requests).toHaveLength(1);
      expect(usage.today.totalTokens).toBeGreaterThan(500);
      expect(usage.today.inputTokens).toBeGreaterThan(usage.today.outputTokens);
      const again = w.fake.sendSlashCommand({ name: 'ask', options: { question: 'Again?' } });
      expect((await replyTo(w.fake, again)).content).toMatch(/You have used [\d,]+ of your 500 model tokens for today/);
    }, 60_000);
  }
});
