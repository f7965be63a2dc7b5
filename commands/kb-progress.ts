/**
 * What `/kb add` shows while a long file is added, and the token budget its embeddings are charged to.
 * Progress edits the ephemeral reply at most every `everyMs` (a short file shows none: the first edit
 * waits that long too), one edit at a time, and the last one is awaited before the final answer, so
 * a late progress line can never overwrite it. Embedding tokens count against the server's daily
 * token budget (GUILD_DAILY_TOKENS and `/settings limits`), in the moderator's name, like a run's.
 */
import type { CommandInteraction } from 'discord.js';
import { NO_MENTIONS, scopeOf } from '../src/discord/members.js';
import type { RuleServices, UsageServices } from '../src/discord/services.js';
import { progressText, type AddProgress, type EmbeddingBudget } from '../src/knowledge/index.js';

/** Progress lines for one add; `stop` before the final reply. */
export interface ProgressReplies {
  update(progress: AddProgress): void;
  stop(): Promise<void>;
}

export function progressReplies(interaction: CommandInteraction, label: string, everyMs: number, now: () => number = Date.now): ProgressReplies {
  const text = progressText(now);
  let last = now();
  let stopped = false;
  let edits: Promise<unknown> = Promise.resolve();
  return {
    update(progress) {
      const line = text.line(progress);
      if (stopped || now() - last < everyMs) return;
      last = now();
      edits = edits.then(() => (stopped ? undefined : interaction.editReply({ content: `⏳ Adding **${label}**: ${line}.`, allowedMentions: NO_MENTIONS }).catch(() => undefined)));
    },
    async stop() {
      stopped = true;
      await edits;
    },
  };
}

/** The server's token budget for one add, and the claim to give back when it is done. */
export interface AddBudget {
  budget: EmbeddingBudget;
  release(): Promise<void>;
}

/** What the budget needs: the usage limiter, and the limits the rules object says apply here. */
export interface BudgetServices {
  usage: Pick<UsageServices, 'limiter'>;
  rules: Pick<RuleServices, 'at'>;
}

/** The budget of `interaction`'s server: its daily tokens left, charged as the moderator's usage. */
export async function serverBudget(ctx: BudgetServices, interaction: CommandInteraction<'cached' | 'raw'>): Promise<AddBudget> {
  const limits = await ctx.rules.at(scopeOf(interaction, interaction.member)).limits();
  // Only the server's cap applies: a moderator's own caps and run limits are for questions, not for documents.
  const admission = await ctx.usage.limiter.admit(
    { guildId: interaction.guildId, channelId: interaction.channelId, userId: interaction.user.id },
    { runsPerHour: 0, concurrentRuns: 0, userDailyTokens: 0, guildDailyTokens: limits.guildDailyTokens, exempt: true },
  );
  if (!admission.ok) return { budget: { room: async () => 0, spend: async () => undefined }, release: async () => undefined };
  const { ticket } = admission;
  return {
    budget: {
      room: () => ticket.remainingTokens(),
      spend: async (tokens, model) => void (await ticket.record({ promptTokens: tokens, completionTokens: 0, totalTokens: tokens }, model)),
    },
    release: () => ticket.release(),
  };
}
