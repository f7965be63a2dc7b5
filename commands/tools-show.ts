/**
 * What an outside (MCP) tool says of itself, for moderators: its listing in full as the model reads it
 * (`/tools show`), and, for a tool suspended because its server changed it, what changed since a
 * moderator enabled it, the pinned text beside the text now. Everything shown came from the server:
 * it sits in code blocks it cannot close, or is escaped, and a long listing comes as a file.
 */
import type { ChatInputCommandInteraction } from 'discord.js';
import { inertLinks } from '../src/agent/clean-text.js';
import { changeSummary, lineDiff, listingText } from '../src/discord/text/listing-text.js';
import type { ToolListing } from '../src/agent/tool.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import type { RuleServices } from '../src/discord/services.js';
import { pinMismatch, pinnedListing } from '../src/policy/index.js';
import { OptionProblem, toolOption } from './command-options.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';
import { MESSAGE_LIMIT } from '../src/discord/posting/split-message.js';

export { changeSummary, lineDiff, listingText };

type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;

/** Room for a listing in the reply itself; past it, the listing is attached as a file. */
const INLINE_ROOM = 1_700;

/** Text from a server inside a code block: it cannot close the block, nor become a link if it did. */
function codeBlock(text: string, lang = ''): string {
  return `\`\`\`${lang}\n${inertLinks(text.replace(/```/g, '`\u200b``')) || ' '}\n\`\`\``;
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
