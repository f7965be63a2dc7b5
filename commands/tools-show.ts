/**
 * What an outside (MCP) tool says of itself, for moderators: its listing in full as the model reads it
 * (`/tools show`), and, for a tool suspended because its server changed it, what changed since a
 * moderator enabled it, the pinned text beside the text now. Everything shown came from the server:
 * it sits in code blocks it cannot close, or is escaped, and a long listing comes as a file.
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import { escapeInline, inertLinks } from '../src/agent/clean-text.js';
import type { ToolListing } from '../src/agent/tool.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import type { RuleServices } from '../src/discord/services.js';
import { pinMismatch, pinnedListing } from '../src/policy/index.js';
import { OptionProblem, toolOption } from './command-options.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';
import { MESSAGE_LIMIT } from '../src/discord/posting/split-message.js';

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;

/** Room for a listing in the reply itself; past it, the listing is attached as a file. */
const INLINE_ROOM = 1_700;

/** Text from a server inside a code block: it cannot close the block, nor become a link if it did. */
function codeBlock(text: string, lang = ''): string {
  return `\`\`\`${lang}\n${inertLinks(text.replace(/```/g, '`\u200b``')) || ' '}\n\`\`\``;
}

/** A listing in full, as plain text (the file's content, and the reply's when short). */
export function listingText(listing: Pick<ToolListing, 'tool' | 'title' | 'description' | 'schema' | 'annotations'>): string {
  const hints = Object.entries(listing.annotations).map(([k, v]) => `${k}: ${v}`).join(', ') || 'none';
  let schema = listing.schema;
  try {
    schema = JSON.stringify(JSON.parse(listing.schema), null, 2);
  } catch {
    /* shown as stored */
  }
  return [`tool: ${listing.tool}`, `title: ${listing.title ?? '(none)'}`, `annotations: ${hints}`, 'description (what the model reads):', listing.description, 'parameters (the schema the model is offered):', schema].join('\n');
}

/**
 * The lines of `before` and `after` that differ, as a unified-style diff (`-` pinned, `+` now), with a
 * line of context around each change. Longest common subsequence over at most 400 lines a side.
 */
export function lineDiff(before: string, after: string): string {
  const a = before.split('\n').slice(0, 400);
  const b = after.split('\n').slice(0, 400);
  const common: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) common[i]![j] = a[i] === b[j] ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
  }
  const rows: Array<{ mark: ' ' | '-' | '+'; line: string }> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) rows.push({ mark: ' ', line: a[i++]! }), j++;
    else if (j < b.length && (i >= a.length || common[i]![j + 1]! >= common[i + 1]![j]!)) rows.push({ mark: '+', line: b[j++]! });
    else rows.push({ mark: '-', line: a[i++]! });
  }
  const near = (k: number) => rows.slice(Math.max(0, k - 1), k + 2).some((r) => r.mark !== ' ');
  return rows.filter((r, k) => r.mark !== ' ' || near(k)).map((r) => `${r.mark} ${r.line}`).join('\n');
}

/** What changed between a pinned listing and the listing now, field by field, short enough for a message. */
export function changeSummary(pinned: ToolListing | undefined, now: ToolListing): string {
  if (!pinned) return 'It was enabled before the bot kept what it pinned (or its pin covered less then), so there is no old text to compare: check it as if new.';
  const fields: Array<[string, string, string]> = [
    ['title', pinned.title ?? '(none)', now.title ?? '(none)'],
    ['description', pinned.description, now.description],
    ['annotations', JSON.stringify(pinned.annotations), JSON.stringify(now.annotations)],
  ];
  const lines = fields.filter(([, was, is]) => was !== is).map(([field, was, is]) => `**${field}**: was «${escapeInline(was, TEXT_CAPS.changedField)}» → now «${escapeInline(is, TEXT_CAPS.changedField)}»`);
  if (pinned.schema !== now.schema) lines.push('**parameters** changed (`/tools show` has the whole difference).');
  return lines.join('\n') || 'Nothing the model reads changed.';
}

/** `/tools show`: an outside tool's listing in full; with what changed since it was pinned, when it was. */
export async function showTool(interaction: GuildCommand, ctx: { rules: Pick<RuleServices, 'tools' | 'snapshot'> }): Promise<void> {
  const name = toolOption(interaction, ctx.rules.tools, true);
  const tool = ctx.rules.tools.find((t) => t.name === name)!;
  const listing = tool.provenance?.listing;
  if (!listing) throw new OptionProblem(`\`${name}\` is one of the bot's own tools; \`/tools list\` says what it does. \`/tools show\` is for tools from MCP servers.`);
  const settings = await ctx.rules.snapshot(interaction.guildId);
  const pinned = pinnedListing(settings, name);
  const changed = pinMismatch(settings, tool) && settings.toolPins?.[name] !== undefined;
  const now = listingText(listing);
  const header = `**\`${name}\`**: ${tool.provenance!.source}, ${tool.provenance!.notes.join(', ')}.${changed ? '\n⏸️ Suspended: its server changed it since it was enabled.' : ''}`;
  const diff = changed && pinned ? lineDiff(listingText(pinned as ToolListing), now) : undefined;
  const body = [header, changed ? changeSummary(pinned as ToolListing | undefined, listing) : undefined, codeBlock(now), diff ? `What changed (\`-\` as enabled, \`+\` now):\n${codeBlock(diff, 'diff')}` : undefined]
    .filter((part) => part !== undefined)
    .join('\n');
  if (body.length <= INLINE_ROOM) {
    await interaction.editReply({ content: body, allowedMentions: NO_MENTIONS });
    return;
  }
  const files = [{ attachment: Buffer.from(`${now}\n`, 'utf8'), name: `${name}.txt` }];
  if (diff) files.push({ attachment: Buffer.from(`--- as enabled\n+++ now\n${lineDiff(listingText(pinned as ToolListing), now)}\n`, 'utf8'), name: `${name}.diff` });
  const summary = changed ? `\n${changeSummary(pinned as ToolListing | undefined, listing)}` : '';
  await interaction.editReply({ content: `${header}${summary}\nIts full text as the model reads it is attached${diff ? ', with what changed since it was enabled' : ''}.`.slice(0, MESSAGE_LIMIT), files, allowedMentions: NO_MENTIONS });
}
