/**
 * What members read about limits: the ephemeral refusal (which limit, the figures, when it resets as a
 * Discord timestamp that shows in the reader's own time zone), the note when a run stops at a token
 * budget, and the `/usage` replies, in Discord's markup. Pure functions; every text fits one message.
 */
import { formatUsd } from '../../state/usage/model-prices.js';
import type { GuildUsageReport, MemberUsageReport, Refusal, UsageTotals } from '../../state/usage/types.js';
import { escapeDisplayName } from '../../agent/clean-text.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';
import { MESSAGE_LIMIT } from '../posting/split-message.js';

const n = (value: number) => value.toLocaleString('en-US');
/** `<t:…:R>` renders as "in 23 minutes" in the reader's client. */
export const relativeTime = (at: Date) => `<t:${Math.ceil(at.getTime() / 1000)}:R>`;

/** The refusal for a request that a limit stopped: nothing was started and no model was called. */
export function refusalText(refusal: Refusal): string {
  const here = refusal.where === 'dm' ? 'in direct messages' : 'in this server';
  const when = refusal.resetsAt ? relativeTime(refusal.resetsAt) : '';
  const tail = 'Nothing was started.';
  switch (refusal.limit) {
    case 'runsPerHour':
      return `⏳ You have asked ${n(refusal.current)} of your ${n(refusal.max)} questions for this hour ${here}. You can ask again ${when}. ${tail}`;
    case 'concurrentRuns':
      return `⏳ You already have ${n(refusal.current)} question${refusal.current === 1 ? '' : 's'} running (at most ${n(refusal.max)} at once ${here}). Ask again when one has finished, or stop one with its Stop button. ${tail}`;
    case 'userDailyTokens':
      return `⏳ You have used ${n(refusal.current)} of your ${n(refusal.max)} model tokens for today ${here}.${held(refusal, 'your')} Your budget resets ${when} (midnight UTC). ${tail}`;
    case 'guildDailyTokens':
      return refusal.where === 'dm'
        ? `⏳ Direct messages with this bot have used ${n(refusal.current)} of their ${n(refusal.max)} model tokens for today.${held(refusal, 'their')} The budget resets ${when} (midnight UTC). ${tail}`
        : `⏳ This server has used ${n(refusal.current)} of its ${n(refusal.max)} model tokens for today.${held(refusal, 'its')} The budget resets ${when} (midnight UTC); a moderator can change it with \`/settings limits\`. ${tail}`;
  }
}

/** Questions running now hold the rest of a budget: it may free up when they finish. */
function held(refusal: Refusal, whose: string): string {
  if (!refusal.reserved || refusal.reserved <= 0) return '';
  return ` Questions running now hold the rest of ${whose} budget (${n(refusal.reserved)} tokens); what they do not use is free again when they finish, so you may try again in a few minutes.`;
}

/** Why a run stopped before its next model call: a daily budget was spent (by it, or by other runs meanwhile). */
export function budgetRefusedNote(refusal: Refusal): string {
  const whose = refusal.limit === 'userDailyTokens' ? 'your daily model-token budget' : refusal.where === 'dm' ? 'the daily model-token budget of direct messages' : "this server's daily model-token budget";
  const when = refusal.resetsAt ? ` It resets ${relativeTime(refusal.resetsAt)} (midnight UTC).` : '';
  return `⏹️ Stopped: ${whose} is spent (${n(refusal.current)} of ${n(refusal.max)} tokens used today), so I made no further model call. What I found so far is above.${when}`;
}

const limitOf = (max: number) => (max > 0 ? n(max) : 'no limit');
const tokensLine = (t: UsageTotals) => `${n(t.totalTokens)} tokens (${n(t.inputTokens)} in, ${n(t.outputTokens)} out), ≈ ${formatUsd(t.costNanoUsd)}`;

/** `/usage` for a member: their usage today and what is left. */
export function memberUsageText(report: MemberUsageReport): string {
  const { limits } = report;
  const lines = [`**Your usage today** (${report.day}, UTC${report.where === 'dm' ? ', direct messages' : ''})`];
  lines.push(`• ${report.today.runs} question${report.today.runs === 1 ? '' : 's'}, ${tokensLine(report.today)}`);
  if (limits.exempt) {
    lines.push('• Your role is exempt from member limits.');
  } else {
    const left = Number.isFinite(report.memberTokensLeft) ? `${n(report.memberTokensLeft)} of ${limitOf(limits.userDailyTokens)} tokens left` : 'no daily token limit';
    lines.push(`• ${left}; resets ${relativeTime(report.dayResetsAt)}`);
    const hour = limits.runsPerHour > 0 ? `${n(report.runsThisHour)} of ${n(limits.runsPerHour)} questions this hour` : `${n(report.runsThisHour)} questions this hour (no limit)`;
    lines.push(`• ${hour}${report.hourResetsAt && limits.runsPerHour > 0 ? `; resets ${relativeTime(report.hourResetsAt)}` : ''}`);
    lines.push(`• ${n(report.runsInFlight)} running now (at most ${limitOf(limits.concurrentRuns)} at once)`);
  }
  if (Number.isFinite(report.guildTokensLeft)) {
    lines.push(`• ${report.where === 'dm' ? 'Direct messages' : 'The server'} can still use ${n(report.guildTokensLeft)} of ${n(limits.guildDailyTokens)} tokens today`);
  }
  lines.push('-# Costs are estimates from list prices; local models count as free.');
  return lines.join('\n');
}

/**
 * `/usage` for a moderator: the server's totals today and its top members and channels. `names` maps
 * member ids to display names (escaped here); unknown members show as mentions, which never ping in
 * replies sent without allowed mentions.
 */
export function guildUsageText(report: GuildUsageReport, names: ReadonlyMap<string, string> = new Map()): string {
  const lines = [`**Server usage today** (${report.day}, UTC)`];
  lines.push(`• ${report.today.runs} question${report.today.runs === 1 ? '' : 's'}, ${tokensLine(report.today)}`);
  if (report.guildDailyTokens > 0) {
    const left = Math.max(0, report.guildDailyTokens - report.today.totalTokens);
    lines.push(`• ${n(left)} of ${n(report.guildDailyTokens)} tokens left; resets ${relativeTime(report.dayResetsAt)}`);
  }
  if (report.topMembers.length > 0) {
    lines.push('**Top members**');
    report.topMembers.forEach((m, i) => {
      const name = names.get(m.userId);
      lines.push(`${i + 1}. ${name ? escapeDisplayName(name, TEXT_CAPS.rankedName) : `<@${m.userId}>`}: ${tokensLine(m.totals)}`);
    });
  }
  if (report.topChannels.length > 0) {
    lines.push('**Top channels**');
    report.topChannels.forEach((c, i) => lines.push(`${i + 1}. <#${c.channelId}>: ${tokensLine(c.totals)}`));
  }
  if (report.today.runs === 0) lines.push('Nobody has asked anything today.');
  const text = lines.join('\n');
  return text.length > MESSAGE_LIMIT ? `${text.slice(0, MESSAGE_LIMIT - 10)}\n…` : text;
}
