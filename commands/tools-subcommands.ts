/**
 * The `/tools` subcommands after the moderator check: list (what is on here and why), enable/disable,
 * reset, audit and log-channel. Each change is a named write of the rules object, so it is audited and posted.
 * Callers defer the reply (ephemeral) before calling, so these answer with editReply.
 */
import { MessageFlags, type ChatInputCommandInteraction } from 'discord.js';
import type { BotServices, RuleServices, Runtime } from '../src/discord/services.js';
import { fitMessage, splitMessage } from '../src/discord/posting/split-message.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import { describeError } from '../src/errors.js';
import { escapeInline } from '../src/agent/clean-text.js';
import { pinMismatch, pinnedListing, resolveToolAccess, safeToolNames, toolsNeedingApproval } from '../src/policy/index.js';
import { approvalAnswer, toolModeAnswer } from '../src/discord/text/choice-answers.js';
import { describeRule, explainAccess, PRECEDENCE_NOTE } from '../src/discord/text/rule-text.js';
import { resetScope } from '../src/discord/rules/tool-writes.js';
import { AUDIT_SHOW_MAX, formatAuditLog } from '../src/discord/text/audit-text.js';
import { listScopeOption, OptionProblem, targetOption, toolOption } from './command-options.js';
import { saveChange } from './moderation.js';
import { changeSummary } from './tools-show.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';


/** What the `/tools` subcommands use. */
export type ToolsServices = {
  rules: Pick<RuleServices, 'tools' | 'outside' | 'snapshot' | 'auditLog' | 'setToolMode' | 'setApproval' | 'resetTools' | 'setLogChannel'>;
  runtime: Pick<Runtime, 'logger'>;
  knowledge?: BotServices['knowledge'];
};

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;

const RULES_SHOWN = 15;
/** Most follow-up messages `/tools list` sends about MCP tools. */
const MCP_PARTS_SHOWN = 4;

async function say(interaction: GuildCommand, content: string): Promise<void> {
  await interaction.editReply({ content: fitMessage(content), allowedMentions: NO_MENTIONS });
}

/** `/tools list`: every tool's verdict for the scope, why, and the rules the server has. */
export async function listTools(interaction: GuildCommand, ctx: ToolsServices): Promise<void> {
  const { scope, who, where } = await listScopeOption(interaction);
  let settings;
  try {
    settings = await ctx.rules.snapshot(interaction.guildId);
  } catch (error) {
    const safe = safeToolNames(ctx.rules.tools).map((name) => `\`${name}\``).join(', ');
    return say(interaction, `⚠️ I could not read this server's tool rules (${describeError(error)}). Until storage recovers, runs only get the built-in safe tools: ${safe}.`);
  }
  const asking = new Set(toolsNeedingApproval(settings, scope, ctx.rules.tools));
  const suspended = new Set(ctx.rules.tools.filter((t) => pinMismatch(settings, t)).map((t) => t.name));
  const outsideNames = new Set(ctx.rules.tools.filter((t) => t.provenance).map((t) => t.name));
  const verdicts = resolveToolAccess(settings, scope, ctx.rules.tools);
  // MCP servers can bring dozens of tools: those still at their default (off) are named on one line.
  const untouched = verdicts.filter((a) => outsideNames.has(a.tool) && a.source === 'default' && !a.enabled).map((a) => `\`${a.tool}\``);
  const lines = verdicts.filter((a) => !(outsideNames.has(a.tool) && a.source === 'default' && !a.enabled)).map((access) => {
    const held = access.enabled && suspended.has(access.tool) ? ' · ⏸️ suspended: its server changed it since it was enabled; enable it again after checking it' : '';
    return `${explainAccess(access)}${asking.has(access.tool) ? ' · 🔐 waits for approval' : ''}${held}`;
  });
  if (untouched.length) lines.push(`⛔ Off until a moderator enables them (from MCP servers; details below): ${fitMessage(untouched.join(', '), 900)}`);
  const rules = settings.toolRules.filter((r) => ctx.rules.tools.some((t) => t.name === r.tool));
  const ruleLines = rules.length === 0
    ? ['-# No rules yet: every tool follows its built-in default.']
    : [`**Rules on this server** (${rules.length}):`, ...rules.slice(-RULES_SHOWN).map((r) => `• ${describeRule(r)}`)];
  if (rules.length > RULES_SHOWN) ruleLines.push(`-# …and ${rules.length - RULES_SHOWN} older rules.`);
  await say(interaction, [`**Tools for ${who} in ${where}**`, ...lines, await knowledgeNote(interaction.guildId, ctx), '', ...ruleLines, `-# ${PRECEDENCE_NOTE}`].filter((l) => l !== undefined).join('\n'));
  // What each MCP tool is, in private follow-ups (a server's list rarely fits beside the verdicts).
  for (const part of splitMessage(outsideToolLines(ctx, settings, suspended).join('\n')).slice(0, MCP_PARTS_SHOWN)) {
    if (part.trim()) await interaction.followUp({ content: part, flags: MessageFlags.Ephemeral, allowedMentions: NO_MENTIONS });
  }
}

/**
 * Tools from MCP servers: where each comes from, what its server says of it, its description as the
 * model reads it (escaped: the server wrote it), what changed in a suspended one, the tools a server
 * lists that are not offered and why, and the protection its process runs under.
 */
function outsideToolLines(ctx: ToolsServices, settings: Parameters<typeof pinnedListing>[0], suspended: ReadonlySet<string>): string[] {
  const outside = ctx.rules.tools.filter((t) => t.provenance);
  const refused = ctx.rules.outside?.refused() ?? [];
  const blocked = ctx.rules.outside?.blocked() ?? [];
  if (outside.length === 0 && refused.length === 0 && blocked.length === 0) return [];
  const lines = [
    '**Tools from MCP servers** (off until enabled; enabling pins their title, description, parameters and hints, and any change suspends them; `/tools show` has a tool\'s full text):',
    ...outside.map((t) => {
      const line = `• \`${t.name}\`: ${t.provenance!.source}, ${t.provenance!.notes.join(', ')}. The model reads: “${escapeInline(t.description, TEXT_CAPS.mcpDescriptionLine)}”`;
      if (!suspended.has(t.name) || settings.toolPins?.[t.name] === undefined) return line;
      return `${line}\n  ⏸️ Changed since it was enabled:\n  ${changeSummary(pinnedListing(settings, t.name) as never, t.provenance!.listing!).replace(/\n/g, '\n  ')}`;
    }),
    // The reason is the bot's own sentence (server and tool names in it are made safe where it is written).
    ...refused.map((r) => `• ⛔ \`${r.tool.slice(0, TEXT_CAPS.toolName).replace(/[`\s]/g, '_')}\` of \`${r.server}\` is not offered: ${r.reason.slice(0, TEXT_CAPS.refusalReason)}.`),
    // The operator's paths are in it: escaped, so a `_` or `*` in a folder's name stays as written.
    ...blocked.map((b) => `• ⛔ Server \`${b.server}\` is not started, so its tools are absent: ${escapeInline(b.reason, TEXT_CAPS.blockedReason)}`),
  ];
  const protection = ctx.rules.outside?.protection();
  if (protection) lines.push(`-# ${protection}`);
  return lines;
}

/** The rules may allow search_knowledge, but runs are offered it only where the server has documents. */
async function knowledgeNote(guildId: string, ctx: ToolsServices): Promise<string | undefined> {
  if (!ctx.knowledge || !ctx.rules.tools.some((t) => t.name === 'search_knowledge')) return undefined;
  const has = await ctx.knowledge.base.hasDocuments(guildId).catch(() => true);
  return has ? undefined : '-# `search_knowledge` is offered only where the server has documents, and this one has none yet (`/kb add`).';
}

/** `/tools enable` and `/tools disable`. */
export async function changeTool(interaction: GuildCommand, ctx: ToolsServices, allow: boolean): Promise<void> {
  const tool = toolOption(interaction, ctx.rules.tools, true);
  const target = await targetOption(interaction);
  // Enabling a tool from outside pins what the model and the policy read of it now, and keeps that text
  // so a later change (which suspends it) can be shown beside it.
  const found = ctx.rules.tools.find((t) => t.name === tool);
  const pin = found?.fingerprint ? { fingerprint: found.fingerprint, listing: found.provenance?.listing } : undefined;
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setToolMode(interaction.guildId, actor, { tool, allow, target, pin }));
  if (saved) await say(interaction, toolModeAnswer(saved, tool, target));
}

/** `/tools approval`: calls to a tool wait for a person's Approve (`ask`) or run at once (`auto`), per scope. */
export async function changeApproval(interaction: GuildCommand, ctx: ToolsServices): Promise<void> {
  const tool = toolOption(interaction, ctx.rules.tools, true);
  const mode = interaction.options.getString('mode', true);
  if (mode !== 'ask' && mode !== 'auto') throw new OptionProblem(`Unknown mode \`${mode.slice(0, TEXT_CAPS.typedId)}\`: use ask or auto. Nothing was changed.`);
  const target = await targetOption(interaction);
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setApproval(interaction.guildId, actor, { tool, mode, target }));
  if (saved) await say(interaction, approvalAnswer(saved, tool, mode, target));
}

/** `/tools reset`: remove rules for one tool or all, in one scope or everywhere. */
export async function resetTools(interaction: GuildCommand, ctx: ToolsServices): Promise<void> {
  const tool = toolOption(interaction, ctx.rules.tools, false);
  const everywhere = interaction.options.getBoolean('everywhere') ?? false;
  const target = everywhere ? 'everywhere' : await targetOption(interaction);
  const outcome = await saveChange(ctx, interaction, async (actor) => ({ reset: await ctx.rules.resetTools(interaction.guildId, actor, { tool, target }) }));
  if (!outcome) return;
  // No rule to remove: the write saved nothing (and audited nothing).
  if (!outcome.reset) return say(interaction, `Nothing to reset: there are no rules for ${resetScope(tool, target)}.`);
  await say(interaction, `✅ Done: ${outcome.reset.detail}. Built-in defaults and broader rules apply again.${outcome.reset.logNote}`);
}

/** `/tools audit`: the newest changes to tools and settings. */
export async function showAudit(interaction: GuildCommand, ctx: ToolsServices): Promise<void> {
  const count = interaction.options.getInteger('count') ?? 10;
  await say(interaction, formatAuditLog(await ctx.rules.auditLog(interaction.guildId), Math.min(Math.max(count, 1), AUDIT_SHOW_MAX)));
}

/** `/tools log-channel`: set (channel given) or clear where every change is posted. */
export async function setLogChannel(interaction: GuildCommand, ctx: ToolsServices): Promise<void> {
  const channel = interaction.options.getChannel('channel');
  const saved = await saveChange(ctx, interaction, (actor) => ctx.rules.setLogChannel(interaction.guildId, actor, channel?.id ?? null));
  if (saved) await say(interaction, `✅ Done: ${saved.detail}.${channel ? ' Every change to `/tools`, `/settings` and the knowledge base is posted there from now on.' : ''}${saved.logNote}`);
}
