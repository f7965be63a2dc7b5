/**
 * /memory — a member's own notes in this server (what they asked the bot to remember): `show` (private,
 * with ids), `forget entry:` (autocomplete), `clear` (after a confirmation), `share on|off [entry:]`
 * (used in team threads too, or only in answers to them), `export` (a private JSON file, with their 👍
 * and 👎 on answers). A member only
 * ever reaches their own notes; moderators remove someone's with `/settings memory-erase`.
 */
import {
  ActionRowBuilder, AttachmentBuilder, ButtonBuilder, ButtonStyle, InteractionContextType, MessageFlags, SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { Command } from '../src/discord/command.js';
import { displayNameOf, scopeOf, NO_MENTIONS } from '../src/discord/members.js';
import type { BotServices } from '../src/discord/services.js';
import { describeError } from '../src/errors.js';
import { entryLabel, notesExport, notesList } from './memory-text.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';
import { CHOICE_LIMIT } from '../src/discord/posting/split-message.js';

const PREFIX = 'memory:';
type GuildCommand = ChatInputCommandInteraction<'cached' | 'raw'>;

const entryOption = (required: boolean) => (o: import('discord.js').SlashCommandStringOption) =>
  o.setName('entry').setDescription(required ? 'The note (type to search your notes)' : 'Only this note (default: all of them)').setRequired(required).setAutocomplete(true).setMaxLength(100);

/** The id an `entry` option names: the id chosen from autocomplete, or one typed with or without `#`. */
const idOf = (typed: string) => typed.trim().replace(/^#/, '').split(/\s/)[0] ?? '';

async function run(interaction: GuildCommand, ctx: BotServices): Promise<{ content: string; files?: AttachmentBuilder[]; components?: Array<ActionRowBuilder<ButtonBuilder>> }> {
  const store = ctx.turns.memory.store;
  const { guildId } = interaction;
  const me = interaction.user.id;
  switch (interaction.options.getSubcommand()) {
    case 'show': {
      const memory = await ctx.rules.at(scopeOf(interaction, interaction.member)).memory();
      return { content: notesList(await store.list(guildId, me), store.limits, memory) };
    }
    case 'forget': {
      const id = idOf(interaction.options.getString('entry', true));
      const gone = await store.forget(guildId, me, id);
      return { content: gone ? `🗑️ Forgotten: ${entryLabel(gone, TEXT_CAPS.noteQuoted)}` : `You have no note \`#${id.slice(0, TEXT_CAPS.typedId)}\` in this server. \`/memory show\` lists yours with their ids.` };
    }
    case 'clear': {
      const count = (await store.list(guildId, me)).length;
      if (count === 0) return { content: 'You have no notes in this server: nothing to clear.' };
      const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId(`${PREFIX}clear:${me}`).setLabel(`Forget all ${count}`).setStyle(ButtonStyle.Danger),
        new ButtonBuilder().setCustomId(`${PREFIX}cancel`).setLabel('Cancel').setStyle(ButtonStyle.Secondary),
      );
      return { content: `Forget all ${count} of your notes in this server? This cannot be undone.`, components: [row] };
    }
    case 'share': {
      const on = interaction.options.getString('state', true) === 'on';
      const typed = interaction.options.getString('entry');
      if (typed === null) {
        const changed = await store.share(guildId, me, on);
        return { content: on
          ? `🔓 Your notes are shared (${changed} changed): I also use them in threads where I answer several people at once, which all of them read. New notes start shared too.`
          : `🔒 Your notes are private again (${changed} changed): I use them only in answers to you alone. New notes start private.` };
      }
      const id = idOf(typed);
      const entry = (await store.list(guildId, me)).find((e) => e.id === id);
      if (!entry) return { content: `You have no note \`#${id.slice(0, TEXT_CAPS.typedId)}\` in this server. \`/memory show\` lists yours with their ids.` };
      await store.share(guildId, me, on, id);
      return { content: `${on ? '🔓 Shared' : '🔒 Private'}: ${entryLabel(entry, TEXT_CAPS.noteQuoted)}` };
    }
    default: {
      const entries = await store.list(guildId, me);
      const votes = await ctx.turns.feedback.votesOf(guildId, me);
      const data = notesExport(entries, { guildId, memberId: me, memberName: displayNameOf(interaction.member, interaction.user), now: ctx.runtime.now() }, votes);
      const voted = votes.length ? ` and your ${votes.length} vote${votes.length === 1 ? '' : 's'} on answers` : '';
      return {
        content: `Your ${entries.length} note${entries.length === 1 ? '' : 's'}${voted} in this server, as a file only you see.`,
        files: [new AttachmentBuilder(Buffer.from(data, 'utf8'), { name: `threadwise-memory-${guildId}.json`, description: 'Your notes, as data' })],
      };
    }
  }
}

export const memory: Command = {
  data: new SlashCommandBuilder()
    .setName('memory')
    .setDescription('What I remember about you in this server (only you see it).')
    .setContexts(InteractionContextType.Guild)
    .addSubcommand((s) => s.setName('show').setDescription('Your notes, with their ids'))
    .addSubcommand((s) => s.setName('forget').setDescription('Forget one of your notes').addStringOption(entryOption(true)))
    .addSubcommand((s) => s.setName('clear').setDescription('Forget all your notes in this server'))
    .addSubcommand((s) =>
      s.setName('share').setDescription('Use your notes in threads where I answer several people too, or only for you')
        .addStringOption((o) => o.setName('state').setDescription('on: shared, off: only for you').setRequired(true).addChoices({ name: 'on', value: 'on' }, { name: 'off', value: 'off' }))
        .addStringOption(entryOption(false)))
    .addSubcommand((s) => s.setName('export').setDescription('Your notes, and your votes on answers, as a file')),

  async execute(interaction, ctx) {
    if (!interaction.inGuild()) {
      await interaction.reply({ content: '/memory works inside a server: notes belong to one server.', flags: MessageFlags.Ephemeral });
      return;
    }
    // Acknowledge before touching storage.
    await interaction.deferReply({ flags: MessageFlags.Ephemeral });
    try {
      const reply = await run(interaction, ctx);
      await interaction.editReply({ ...reply, allowedMentions: NO_MENTIONS });
    } catch (error) {
      ctx.runtime.logger.error({ err: error, interactionId: interaction.id, guildId: interaction.guildId }, '/memory failed');
      await interaction.editReply({ content: `❌ That did not work (${describeError(error)}). Nothing was changed; try again in a moment.`, allowedMentions: NO_MENTIONS });
    }
  },

  async autocomplete(interaction, ctx) {
    if (!interaction.guildId) return interaction.respond([]);
    const typed = interaction.options.getFocused().trim().toLowerCase().replace(/^#/, '');
    const entries = await ctx.turns.memory.store.list(interaction.guildId, interaction.user.id).catch(() => []);
    const matching = [...entries].reverse().filter((e) => e.id.startsWith(typed) || e.text.toLowerCase().includes(typed)).slice(0, 25);
    await interaction.respond(matching.map((e) => ({ name: entryLabel(e, CHOICE_LIMIT - 10), value: e.id })));
  },

  buttons: {
    prefix: PREFIX,
    async handle(interaction, ctx) {
      const [, action, owner] = interaction.customId.split(':');
      if (action !== 'clear' || !owner || !interaction.guildId) {
        await interaction.update({ content: 'Cancelled: nothing was forgotten.', components: [] });
        return;
      }
      if (interaction.user.id !== owner) {
        await interaction.reply({ content: 'This button clears someone else\'s notes: only they can press it.', flags: MessageFlags.Ephemeral });
        return;
      }
      await interaction.deferUpdate();
      try {
        const count = await ctx.turns.memory.store.clear(interaction.guildId, owner);
        await interaction.editReply({ content: `🗑️ Done: I forgot your ${count} note${count === 1 ? '' : 's'} in this server.`, components: [] });
      } catch (error) {
        await interaction.editReply({ content: `❌ I could not clear your notes (${describeError(error)}). Nothing was changed.`, components: [] });
      }
    },
  },
};
