/**
 * What `/kb` and the "Add to knowledge base" menu do once the checks passed (moderator where needed,
 * knowledge base on, reply deferred as ephemeral): add a document and audit it, list, remove, search.
 * Refusals of the input (type, size, caps, address rules) are KnowledgeInputError, shown as they are.
 */
import { escapeMarkdown, type ChatInputCommandInteraction, type CommandInteraction } from 'discord.js';
import { channelViewer } from '../src/discord/posting/permissions.js';
import type { KnowledgeServices } from '../src/discord/services.js';
import { CHOICE_LIMIT, fitMessage } from '../src/discord/posting/split-message.js';
import { NO_MENTIONS } from '../src/discord/members.js';
import { formatBytes, type AddResult, type DocumentInfo, type DocumentInput } from '../src/knowledge/index.js';
import { OptionProblem } from './command-options.js';
import { progressReplies, serverBudget, type BudgetServices } from './kb-progress.js';
import { auditAction, type ModerationServices } from './moderation.js';

/** What the knowledge base commands use besides the knowledge base. */
export type KbServices = ModerationServices & BudgetServices;

type GuildCommand = CommandInteraction<'cached' | 'raw'>;
type GuildSlash = ChatInputCommandInteraction<'cached' | 'raw'>;

/** Why the knowledge commands do nothing: the only way config leaves the knowledge base off. */
export const KNOWLEDGE_OFF =
  'The knowledge base is switched off on this bot: its storage (`KEYV_URL`) is Redis, which has no full-text search. ' +
  'Whoever runs the bot can turn it on by setting `KNOWLEDGE_URL` to a SQLite file or a PostgreSQL database.';

const LISTED = 20;

async function say(interaction: GuildCommand, content: string): Promise<void> {
  await interaction.editReply({ content: fitMessage(content), allowedMentions: NO_MENTIONS });
}

/** A document's title for a message: escaped, on one line, not too long. */
export function shownTitle(title: string, max = 120): string {
  const line = title.replace(/\s+/g, ' ').trim();
  return escapeMarkdown(line.length > max ? `${line.slice(0, max - 1)}…` : line);
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/** Where a document came from, for messages: its link (without an embed) or its source. */
function origin(doc: Pick<DocumentInfo, 'link' | 'source'>): string {
  return doc.link ? `<${doc.link}>` : `\`${doc.source.replace(/`/g, 'ˋ')}\``;
}

/**
 * Add a document, audit it and tell the moderator (the same for `/kb add` and the message menu);
 * `notice`, a line more for the moderator (who will find it).
 */
export async function addDocument(interaction: GuildCommand, ctx: KbServices, knowledge: KnowledgeServices, doc: DocumentInput, notice = ''): Promise<void> {
  const progress = progressReplies(interaction, shownTitle(doc.source.split('/').pop() || doc.source), knowledge.progressEveryMs);
  const spend = knowledge.base.meaning ? await serverBudget(ctx, interaction) : undefined;
  let result: AddResult;
  try {
    result = await knowledge.base.add(interaction.guildId, doc, { onProgress: progress.update, budget: spend?.budget });
  } finally {
    await progress.stop();
    await spend?.release();
  }
  const { document } = result;
  const detail = auditDetail(result);
  const note = await auditAction(ctx, interaction, 'kb.add', detail);
  const used = await knowledge.base.bytes(interaction.guildId);
  const size = `This server's documents: ${formatBytes(used)} of ${formatBytes(knowledge.base.limits.maxBytes)}.`;
  const title = `**${shownTitle(document.title)}** (#${document.id})`;
  const content = result.status === 'unchanged'
    ? `✅ ${title} is already in the knowledge base with the same content; nothing was indexed again. ${size}`
    : `✅ ${result.status === 'added' ? 'Added' : 'Replaced'} ${title}: ${plural(document.passages, 'passage')}, ${formatBytes(document.bytes)}, from ${origin(document)}. ${size}\n` +
      '-# `search_knowledge` can find it from the next step of any run here (unless a `/tools` rule turns the tool off).' + meaningNote(result) +
      (result.note ? `\n-# ⚠️ ${escapeMarkdown(result.note)}` : '');
  await say(interaction, content + (notice ? `\n${notice}` : '') + note);
}

/** What meaning search made of the document, when it is on. */
function meaningNote({ embedding: e, document }: AddResult): string {
  if (!e) return '';
  if (e.state === 'done') return `\n-# Found by meaning too: ${plural(document.passages, 'passage')} embedded with \`${e.model}\` (${plural(e.tokens, 'token')}, counted in this server's usage).`;
  if (e.state === 'pending') {
    return `\n⚠️ Meaning search could not embed it (${escapeMarkdown(e.reason ?? 'the embedding server failed')}), so for now it is found by its words only; it is embedded in the background once the embedding server answers.`;
  }
  return `\n⚠️ Not embedded for meaning search: ${escapeMarkdown(e.reason ?? 'no budget left')}. It is found by its words; add it again once the budget resets (midnight UTC) to search it by meaning too.`;
}

function auditDetail({ status, document }: AddResult): string {
  const what = `"${shownTitle(document.title, 80)}" (#${document.id}, ${plural(document.passages, 'passage')}, ${formatBytes(document.bytes)}) from ${origin(document)}`;
  if (status === 'unchanged') return `re-added ${what} to the knowledge base (unchanged)`;
  return `${status === 'added' ? 'added' : 'replaced'} ${what} in the knowledge base`;
}

/** `/kb add`: a file attached to the command, or a web page. */
export async function addFromOptions(interaction: GuildSlash, ctx: KbServices, knowledge: KnowledgeServices): Promise<void> {
  const file = interaction.options.getAttachment('file');
  const url = interaction.options.getString('url')?.trim();
  const link = interaction.options.getString('link')?.trim();
  if (file && url) throw new OptionProblem('Give a `file` or a `url`, not both: one document at a time. Nothing was added.');
  if (!file && !url) throw new OptionProblem('Give a `file` (Markdown, plain text, HTML, PDF or Word) or a `url` of a web page to add. Nothing was added.');
  if (link && !file) throw new OptionProblem('`link` is the page to cite for an attached file; a `url` is cited as itself. Nothing was added.');
  const doc = file ? await knowledge.fromAttachment(file) : await knowledge.fromUrl(url!);
  await addDocument(interaction, ctx, knowledge, link ? { ...doc, link } : doc);
}

/** `/kb list`: the documents, newest first, and how much of the cap they take. */
export async function listDocuments(interaction: GuildSlash, ctx: KbServices, knowledge: KnowledgeServices): Promise<void> {
  const documents = await knowledge.base.list(interaction.guildId);
  const used = await knowledge.base.bytes(interaction.guildId);
  const note = await auditAction(ctx, interaction, 'kb.list', `listed the knowledge base (${plural(documents.length, 'document')})`);
  if (documents.length === 0) {
    return say(interaction, `This server's knowledge base has no documents yet. Add one with \`/kb add\` (a file or a URL), or **Apps → Add to knowledge base** on a message.${note}`);
  }
  const lines = documents.slice(0, LISTED).map((d) =>
    `\`#${d.id}\` **${shownTitle(d.title, 80)}** · ${plural(d.passages, 'passage')} · ${formatBytes(d.bytes)} · <t:${Math.floor(d.updatedAt.getTime() / 1000)}:R> · ${origin(d)}` +
    // Found only by members who can view that channel (a message added from it).
    (d.channelId ? ` · 🔒 <#${d.channelId}>` : ''));
  if (documents.length > LISTED) lines.push(`-# …and ${documents.length - LISTED} older documents (\`npm run kb -- list --guild ${interaction.guildId}\` lists them all).`);
  const header = `**${plural(documents.length, 'document')}**, ${formatBytes(used)} of ${formatBytes(knowledge.base.limits.maxBytes)} (newest first):`;
  await say(interaction, [header, ...lines].join('\n') + note);
}

/** `/kb remove`: by id (what autocomplete fills in), exact source, or exact title. */
export async function removeDocument(interaction: GuildSlash, ctx: KbServices, knowledge: KnowledgeServices): Promise<void> {
  const typed = interaction.options.getString('document', true).trim();
  const guildId = interaction.guildId;
  let removed = await knowledge.base.remove(guildId, typed.replace(/^#(?=\d+$)/, ''));
  if (!removed) {
    const byTitle = (await knowledge.base.list(guildId)).filter((d) => d.title.toLowerCase() === typed.toLowerCase());
    if (byTitle.length > 1) {
      throw new OptionProblem(`${byTitle.length} documents are titled "${shownTitle(typed)}"; pick one from the suggestions (or give its id from \`/kb list\`). Nothing was removed.`);
    }
    if (byTitle.length === 1) removed = await knowledge.base.remove(guildId, byTitle[0]!.id);
  }
  if (!removed) throw new OptionProblem(`There is no document "${shownTitle(typed)}" here; \`/kb list\` shows them. Nothing was removed.`);
  const note = await auditAction(ctx, interaction, 'kb.remove', `removed "${shownTitle(removed.title, 80)}" (#${removed.id}) from the knowledge base (was ${origin(removed)})`);
  await say(interaction, `✅ Removed **${shownTitle(removed.title)}** (#${removed.id}, ${plural(removed.passages, 'passage')}) from the knowledge base.${note}`);
}

/** `/kb search`: the ranked passages, as `search_knowledge` sees them, with links. */
export async function searchDocuments(interaction: GuildSlash, knowledge: KnowledgeServices): Promise<void> {
  const query = interaction.options.getString('query', true);
  const limit = interaction.options.getInteger('limit') ?? 5;
  // Snippets sized so the whole reply fits one message.
  const hits = await knowledge.base.search(interaction.guildId, query, {
    limit,
    snippetChars: Math.max(120, Math.floor(1_300 / limit)),
    // What was said in a channel is shown only to members who can view that channel.
    canView: channelViewer(interaction.guild, interaction.user.id),
  });
  if (hits.length === 0) {
    const none = (await knowledge.base.hasDocuments(interaction.guildId))
      ? knowledge.base.meaning
        ? 'No passage matches those words or their meaning: try other words.'
        : 'No passage matches those words. The search matches words, not meaning: try other or fewer words.'
      : "This server's knowledge base has no documents yet; moderators add them with `/kb add`.";
    return say(interaction, none);
  }
  const blocks = hits.map((hit, i) => {
    const where = shownTitle([hit.title, ...hit.headings].join(' › ') + (hit.location ? `, ${hit.location}` : ''), 150);
    const head = hit.link ? `**${i + 1}.** [${where.replace(/[[\]]/g, '')}](<${hit.link}>)` : `**${i + 1}.** ${where} · ${origin(hit)}`;
    return `${head}\n> ${escapeMarkdown(hit.snippet.replace(/\s+/g, ' '))}`;
  });
  await say(interaction, `**${plural(hits.length, 'passage')}** from this server's documents, best first:\n${blocks.join('\n')}`);
}

/** Autocomplete for `/kb remove`: the documents whose id, title or source contains what is typed. */
export async function documentChoices(knowledge: KnowledgeServices, guildId: string, typed: string): Promise<Array<{ name: string; value: string }>> {
  const needle = typed.trim().toLowerCase().replace(/^#/, '');
  const documents = await knowledge.base.list(guildId);
  return documents
    .filter((d) => !needle || d.id === needle || d.title.toLowerCase().includes(needle) || d.source.toLowerCase().includes(needle))
    .slice(0, 25)
    .map((d) => {
      const name = `#${d.id} ${d.title.replace(/\s+/g, ' ')}`;
      return { name: fitMessage(name, CHOICE_LIMIT), value: d.id };
    });
}
