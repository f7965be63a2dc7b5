import { describe, expect, it } from 'vitest';
import type { ModelReply, Usage } from '../../src/agent/types.js';
import { BUDGET_UNCHECKED, runBudget } from '../../src/discord/turn/claim.js';
import { silentLogger } from '../../src/logger.js';
import { StorageError } from '../../src/errors.js';
import { TokenCounter, type Refusal, type UsageTicket } from '../../src/state/index.js';

/** A ticket whose check answers from `next` and whose records are kept (or fail). */
function fakeTicket(options: { check?: () => Promise<Refusal | undefined>; failRecord?: boolean } = {}) {
  const recorded: Array<{ usage: Usage; model: string }> = [];
  const ticket = {
    id: 'claim-1',
    subject: { guildId: 'G1', channelId: 'C1', userId: 'U1' },
    limits: { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 1_000, guildDailyTokens: 0, exempt: false },
    reserved: 0,
    check: options.check ?? (async () => undefined),
    async record(usage: Usage, model: string) {
      if (options.failRecord) throw new StorageError('Storage usage count failed on sqlite (x): SQLITE_BUSY.');
      recorded.push({ usage, model });
      return { member: {} as never, guild: {} as never, remainingTokens: 0, costNanoUsd: 0 };
    },
    remainingTokens: async () => 0,
    hold: async () => ({ ok: true as const }),
    release: async () => {},
  } satisfies UsageTicket;
  return { ticket, recorded };
}

const reply = (usage: Usage, content = 'It is noon.'): ModelReply => ({ content, toolCalls: [], usage });
const tokens = new TokenCounter('o200k_base');
const messages = [{ role: 'system' as const, content: 'You are a bot.' }, { role: 'user' as const, content: 'What time is it?' }];

describe('the usage ticket as a run\'s call budget', () => {
  it('lets a call go while the budgets have room, and says which budget and when it resets once they do not', async () => {
    const refusal: Refusal = { limit: 'userDailyTokens', current: 1_200, max: 1_000, resetsAt: new Date('2025-06-02T00:00:00Z'), where: 'server' };
    let next: Refusal | undefined;
    const { ticket } = fakeTicket({ check: async () => next });
    const budget = runBudget({ ticket, model: 'gpt-4o-mini', tokens, logger: silentLogger() });
    expect(await budget.beforeCall()).toBeUndefined();
    next = refusal;
    expect(await budget.beforeCall()).toMatch(/^⏹️ Stopped: your daily model-token budget is spent \(1,200 of 1,000 tokens used today\).*It resets <t:1748822400:R>/);
    expect(budget.refusal).toEqual(refusal);
  });

  it('stops the run (fails closed) when the budgets cannot be read', async () => {
    const { ticket } = fakeTicket({ check: async () => Promise.reject(new StorageError('Storage usage read failed on redis (x): timed out.')) });
    expect(await runBudget({ ticket, model: 'gpt-4o-mini', tokens, logger: silentLogger() }).beforeCall()).toBe(BUDGET_UNCHECKED);
  });

  it('records what the server reported, and counts with the tokenizer what it did not (tool schemas included)', async () => {
    const { ticket, recorded } = fakeTicket();
    const budget = runBudget({ ticket, model: 'gpt-4o-mini', tokens, logger: silentLogger() });
    await budget.afterCall({ messages, reply: reply({ promptTokens: 30, completionTokens: 4, totalTokens: 34 }) });
    await budget.afterCall({ messages, reply: reply({ promptTokens: 0, completionTokens: 0, totalTokens: 0 }) });
    const tools = [{ type: 'function' as const, function: { name: 'current_time', description: 'The current date and time in a time zone.', parameters: { type: 'object', properties: { timezone: { type: 'string' } } } } }];
    await budget.afterCall({ messages, tools, reply: reply({ promptTokens: 0, completionTokens: 0, totalTokens: 0 }) });
    expect(recorded[0]).toEqual({ usage: { promptTokens: 30, completionTokens: 4, totalTokens: 34 }, model: 'gpt-4o-mini' });
    const [plain, withTools] = [recorded[1]!.usage, recorded[2]!.usage];
    expect(plain.promptTokens).toBeGreaterThan(10);
    expect(plain.completionTokens).toBe(tokens.text('It is noon.'));
    expect(plain.totalTokens).toBe(plain.promptTokens + plain.completionTokens);
    expect(withTools.promptTokens).toBe(plain.promptTokens + tokens.text(JSON.stringify(tools)));
  });

  it('never fails the run when a record cannot be written (the call already happened)', async () => {
    const { ticket } = fakeTicket({ failRecord: true });
    await expect(runBudget({ ticket, model: 'gpt-4o-mini', tokens, logger: silentLogger() }).afterCall({ messages, reply: reply({ promptTokens: 1, completionTokens: 1, totalTokens: 2 }) })).resolves.toBeUndefined();
  });
});
