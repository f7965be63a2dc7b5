import {
  ActionRowBuilder, ApplicationCommandType, type ChatInputCommandInteraction, ContextMenuCommandBuilder,
  InteractionContextType, MessageFlags, ModalBuilder, Routes, SlashCommandBuilder, TextInputBuilder, TextInputStyle,
} from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type Rig, rejection, slash, startRig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const EXPLAIN = new ContextMenuCommandBuilder().setName('Explain This').setType(ApplicationCommandType.Message).toJSON();
const WHO = new ContextMenuCommandBuilder().setName('Who Is').setType(ApplicationCommandType.User).toJSON();
const SUMMARIZE = new SlashCommandBuilder().setName('summarize').setDescription('Summarize a file')
  .addAttachmentOption((o) => o.setName('file').setDescription('The file').setRequired(true)).toJSON();
const GUILD_ONLY = new SlashCommandBuilder().setName('server').setDescription('Only in servers').setContexts(InteractionContextType.Guild).toJSON();

function questionModal(): ModalBuilder {
  return new ModalBuilder().setCustomId('explain-modal').setTitle('Ask about it').addComponents(
    new ActionRowBuilder<TextInputBuilder>().addComponents(
      new TextInputBuilder().setCustomId('question').setLabel('Your question').setStyle(TextInputStyle.Paragraph).setMaxLength(200),
    ),
  );
}

describe('DMs with the bot', () => {
  it('a slash command in a DM carries user instead of member, context 1 and no guild; guild-only commands are not offered there', async () => {
    rig = await startRig({ commands: [slash('ping'), GUILD_ONLY] });
    const { fake, handlers } = rig;
    const seen: unknown[] = [];
    handlers.set('ping', async (i) => {
      const c = i as ChatInputCommandInteraction;
      seen.push([c.inGuild(), c.guildId, c.member, c.user.id, c.context, c.channelId]);
      await c.reply('pong');
    });
    const dm = fake.sendSlashCommand({ name: 'ping', dm: true });
    const reply = await fake.waitForMessage((m) => m.interactionId === dm.id);
    expect(seen).toEqual([[false, null, null, fake.defaults.userId, 1, dm.channelId]]);
    expect(reply.guildId).toBeNull();
    expect(fake.channel(dm.channelId)).toMatchObject({ type: 1, recipientId: fake.defaults.userId });
    expect(() => fake.sendSlashCommand({ name: 'server', dm: true })).toThrow(/contexts \[0\].*DMs/);
    fake.registerCommands([slash('local')], { guildId: fake.defaults.guildId });
    expect(() => fake.sendSlashCommand({ name: 'local', dm: true })).toThrow(/not registered.*DMs/);
    const stranger = fake.addUser({ username: 'stranger' });
    expect(() => fake.sendSlashCommand({ name: 'ping', dm: true, userId: stranger.id })).toThrow(/shares no server/);
  });
});

describe('context-menu commands, modals and ephemeral replies', () => {
  it('a message command resolves its target with content; the bot opens a modal, the user submits it, the reply is ephemeral and quick', async () => {
    rig = await startRig({ commands: [EXPLAIN] });
    const { fake, handlers } = rig;
    const target = fake.sendMessage({ content: 'E = mc²', userId: fake.defaults.otherUserId });
    const seen: unknown[] = [];
    handlers.set('Explain This', async (i) => {
      if (!i.isMessageContextMenuCommand()) return;
      seen.push([i.targetId, i.targetMessage.content]);
      await i.showModal(questionModal());
    });
    handlers.set('explain-modal', async (i) => {
      if (!i.isModalSubmit()) return;
      seen.push(i.fields.getTextInputValue('question'));
      await i.reply({ content: 'Thinking about it', flags: MessageFlags.Ephemeral });
    });
    const menu = fake.sendMessageCommand({ name: 'Explain This', messageId: target.id });
    await fake.waitForCallback(menu.id);
    expect(menu).toMatchObject({ commandType: 3, ackType: 9, modal: { custom_id: 'explain-modal', title: 'Ask about it' } });
    const submit = fake.submitModal({ interactionId: menu.id, values: { question: 'Why squared?' } });
    const callback = await fake.waitForCallback(submit.id);
    expect(seen).toEqual([[target.id, 'E = mc²'], 'Why squared?']);
    expect([submit.type, submit.ephemeral, submit.ackType]).toEqual([5, true, 4]);
    expect(callback.latencyMs).toBeLessThan(3000);
    expect(submit.ackedAt! - submit.dispatchedAt).toBe(submit.ackLatencyMs);
    expect(fake.message(submit.originalMessageId!)!.flags & MessageFlags.Ephemeral).toBe(MessageFlags.Ephemeral);
    expect(() => fake.submitModal({ interactionId: menu.id, values: { question: 'again' } })).toThrow(/already submitted/);
  });

  it('refuses a modal Discord would not show, and a submission without its required field', async () => {
    rig = await startRig({ commands: [EXPLAIN] });
    const { fake, handlers } = rig;
    const target = fake.sendMessage({ content: 'hello' });
    const outcomes: unknown[] = [];
    handlers.set('Explain This', async (i) => {
      if (!i.isMessageContextMenuCommand()) return;
      // discord.js's builder would refuse the long title itself; send the raw callback as a bot without it could.
      const tooLong = { ...questionModal().toJSON(), title: 't'.repeat(46) };
      outcomes.push((await rejection(i.client.rest.post(Routes.interactionCallback(i.id, i.token), { body: { type: 9, data: tooLong }, auth: false }))).code);
      await i.showModal(questionModal());
    });
    const menu = fake.sendMessageCommand({ name: 'Explain This', messageId: target.id });
    await fake.waitFor((e) => e.kind === 'callback' && e.interaction.id === menu.id && e.callback.status === 204);
    expect(outcomes).toEqual([50035]);
    expect(() => fake.submitModal({ interactionId: menu.id, values: {} })).toThrow(/text input question is required/);
  });

  it('a user command resolves the target user and member', async () => {
    rig = await startRig({ commands: [WHO] });
    const { fake, handlers } = rig;
    const seen: unknown[] = [];
    handlers.set('Who Is', async (i) => {
      if (!i.isUserContextMenuCommand()) return;
      seen.push([i.targetUser.username, i.targetMember !== null]);
      await i.reply({ content: 'someone', flags: MessageFlags.Ephemeral });
    });
    const sent = fake.sendUserCommand({ name: 'Who Is', targetUserId: fake.defaults.otherUserId });
    await fake.waitForCallback(sent.id);
    expect(seen).toEqual([['bob', true]]);
    expect(sent.commandType).toBe(2);
  });
});

describe('attachment options', () => {
  it('arrive in resolved.attachments with a signed CDN URL, content type and size', async () => {
    rig = await startRig({ commands: [SUMMARIZE] });
    const { fake, handlers } = rig;
    const seen: unknown[] = [];
    handlers.set('summarize', async (i) => {
      const file = (i as ChatInputCommandInteraction).options.getAttachment('file', true);
      const body = await (await fetch(file.url)).text();
      seen.push([file.name, file.contentType, file.size, body, file.url.startsWith(`${fake.cdnUrl}/ephemeral-attachments/`)]);
      await (i as ChatInputCommandInteraction).reply('read it');
    });
    const sent = fake.sendSlashCommand({ name: 'summarize', options: { file: { filename: 'notes.txt', data: 'five!', contentType: 'text/plain' } } });
    await fake.waitForCallback(sent.id);
    expect(seen).toEqual([['notes.txt', 'text/plain', 5, 'five!', true]]);
    expect(() => fake.sendSlashCommand({ name: 'summarize', options: { file: 'notes.txt' } })).toThrow(/ATTACHMENT option/);
  });
});
