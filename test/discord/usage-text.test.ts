import { describe, expect, it } from 'vitest';
import { budgetRefusedNote, guildUsageText, memberUsageText, refusalText } from '../../src/discord/text/usage-text.js';
import { emptyTotals, type MemberUsageReport } from '../../src/state/usage/index.js';

const AT = new Date('2025-06-01T12:30:00Z');
const MIDNIGHT = new Date('2025-06-02T00:00:00Z');
const T = (d: Date) => `<t:${d.getTime() / 1000}:R>`;

describe('refusal text', () => {
  it('says which limit, the figures and when it resets, for each limit', () => {
    expect(refusalText({ limit: 'runsPerHour', current: 5, max: 5, resetsAt: AT, where: 'server' })).toBe(
      `⏳ You have asked 5 of your 5 questions for this hour in this server. You can ask again ${T(AT)}. Nothing was started.`,
    );
    expect(refusalText({ limit: 'concurrentRuns', current: 2, max: 2, resetsAt: null, where: 'server' })).toMatch(
      /^⏳ You already have 2 questions running \(at most 2 at once in this server\)\. Ask again when one has finished/,
    );
    expect(refusalText({ limit: 'userDailyTokens', current: 201_234, max: 200_000, resetsAt: MIDNIGHT, where: 'dm' })).toBe(
      `⏳ You have used 201,234 of your 200,000 model tokens for today in direct messages. Your budget resets ${T(MIDNIGHT)} (midnight UTC). Nothing was started.`,
    );
    expect(refusalText({ limit: 'guildDailyTokens', current: 2_000_100, max: 2_000_000, resetsAt: MIDNIGHT, where: 'server' })).toMatch(
      /This server has used 2,000,100 of its 2,000,000 model tokens for today\. The budget resets <t:1748822400:R> \(midnight UTC\); a moderator can change it with `\/settings limits`/,
    );
  });

  it('rounds the reset up to the next second so it never reads as already past', () => {
    expect(refusalText({ limit: 'runsPerHour', current: 1, max: 1, resetsAt: new Date(1_000_500), where: 'server' })).toContain('<t:1001:R>');
  });

  it('explains a run stopped before a model call by a spent budget: which one, the figures, when it resets', () => {
    expect(budgetRefusedNote({ limit: 'guildDailyTokens', current: 10_000, max: 10_000, resetsAt: MIDNIGHT, where: 'server' })).toMatch(
      /this server's daily model-token budget is spent \(10,000 of 10,000 tokens used today\), so I made no further model call\. .*It resets <t:1748822400:R>/,
    );
    expect(budgetRefusedNote({ limit: 'userDailyTokens', current: 120, max: 100, resetsAt: MIDNIGHT, where: 'server' })).toContain('your daily model-token budget is spent');
  });

  it('says when questions running now hold the rest of a budget', () => {
    expect(refusalText({ limit: 'guildDailyTokens', current: 6_000, max: 10_000, resetsAt: MIDNIGHT, where: 'server', reserved: 4_000 })).toMatch(
      /used 6,000 of its 10,000 model tokens for today\. Questions running now hold the rest of its budget \(4,000 tokens\)/,
    );
  });
});

describe('/usage text', () => {
  const report: MemberUsageReport = {
    day: '2025-06-01',
    today: { inputTokens: 9_000, outputTokens: 1_000, totalTokens: 10_000, costNanoUsd: 1_960_000, runs: 3 },
    runsThisHour: 2,
    hourResetsAt: AT,
    runsInFlight: 1,
    limits: { runsPerHour: 20, concurrentRuns: 2, userDailyTokens: 200_000, guildDailyTokens: 2_000_000, exempt: false },
    memberTokensLeft: 190_000,
    guildTokensLeft: 1_500_000,
    dayResetsAt: MIDNIGHT,
    where: 'server',
  };

  it('shows a member their usage and what is left', () => {
    expect(memberUsageText(report).split('\n')).toEqual([
      '**Your usage today** (2025-06-01, UTC)',
      '• 3 questions, 10,000 tokens (9,000 in, 1,000 out), ≈ $0.0020',
      `• 190,000 of 200,000 tokens left; resets ${T(MIDNIGHT)}`,
      `• 2 of 20 questions this hour; resets ${T(AT)}`,
      '• 1 running now (at most 2 at once)',
      '• The server can still use 1,500,000 of 2,000,000 tokens today',
      '-# Costs are estimates from list prices; local models count as free.',
    ]);
    const exempt = memberUsageText({ ...report, limits: { ...report.limits, exempt: true }, memberTokensLeft: Infinity });
    expect(exempt).toContain('Your role is exempt from member limits.');
  });

  it('shows moderators the server totals and top members with escaped names', () => {
    const text = guildUsageText(
      {
        day: '2025-06-01',
        today: { ...emptyTotals(), totalTokens: 5_000, inputTokens: 4_000, outputTokens: 1_000, runs: 2 },
        topMembers: [{ userId: '1', totals: { ...emptyTotals(), totalTokens: 4_000 } }, { userId: '2', totals: { ...emptyTotals(), totalTokens: 1_000 } }],
        topChannels: [{ channelId: '9', totals: { ...emptyTotals(), totalTokens: 5_000 } }],
        guildDailyTokens: 10_000,
        dayResetsAt: MIDNIGHT,
      },
      new Map([['1', '**@everyone**\u202E']]),
    );
    expect(text).toContain('• 5,000 of 10,000 tokens left');
    expect(text).toContain('1. \\*\\*@\u200beveryone\\*\\*: 4,000 tokens');
    expect(text).toContain('2. <@2>: 1,000 tokens');
    expect(text).toContain('1. <#9>: 5,000 tokens');
    expect(text).not.toContain('\u202E');
  });
});
