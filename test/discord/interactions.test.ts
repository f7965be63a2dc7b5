/**
 * The interaction registry: one list of commands and components, looked up by name or custom id
 * prefix, refused at start-up when it is ambiguous; and the bot routing every kind of interaction
 * through it end to end (production defaults), including what it says about a button it no longer has.
 */
import { ApplicationCommandType, ContextMenuCommandBuilder, SlashCommandBuilder } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { interactions } from '../../commands/index.js';
import { startBot } from '../../src/discord/bot.js';
import type { Command, MessageCommand } from '../../src/discord/command.js';
import type { ButtonEntry, ModalEntry, SelectEntry } from '../../src/discord/interaction-entry.js';
import { interactionRegistry, InteractionListError, NOT_KNOWN, type InteractionEntry } from '../../src/discord/interactions.js';
import type { BotServices } from '../../src/discord/services.js';
import { stopButton } from '../../src/discord/buttons/stop.js';
import { privateRefusal, replyTo, startModeration, type ModerationWorld } from '../policy/discord-helpers.js';
import { isFinalAnswer } from './harness.js';

const handled = async () => undefined;
const slash = (name: string, extras: Partial<Command> = {}): Command =>
  ({ data: new SlashCommandBuilder().setName(name).setDescription(`The ${name} command`), execute: handled, ...extras });
const onMessage = (name: string): MessageCommand =>
  ({ data: new ContextMenuCommandBuilder().setName(name).setType(ApplicationCommandType.Message), execute: handled });
const button = (prefix: string): ButtonEntry<BotServices> => ({ kind: 'button', prefix, handle: handled });
const select = (prefix: string): SelectEntry<BotServices> => ({ kind: 'select', prefix, handle: handled });
const modal = (prefix: string): ModalEntry<BotServices> => ({ kind: 'modal', prefix, handle: handled });

function refusal(entries: InteractionEntry[]): string {
  try {
    interactionRegistry(entries);
  } catch (error) {
    expect(error).toBeInstanceOf(InteractionListError);
    return (error as Error).message;
  }
  throw new Error('the list was accepted');
}

describe('the interaction registry', () => {
  it('finds each kind by its name or by the start of its custom id, a command\'s own components included', () => {
    const vote = { prefix: 'vote:', handle: handled };
    const poll = slash('poll', { buttons: vote, modals: { prefix: 'poll-form:', handle: handled } });
    const quote = onMessage('Quote this');
    const stop = button('stop:');
    const pick = select('pick:');
    const form = modal('form:');
    const registry = interactionRegistry([poll, quote, stop, pick, form]);

    expect(registry.slash('poll')).toBe(poll);
    expect(registry.messageCommand('Quote this')).toBe(quote);
    // A slash command and a message command live apart: neither is found as the other.
    expect(registry.slash('Quote this')).toBeUndefined();
    expect(registry.messageCommand('poll')).toBeUndefined();
    expect(registry.button('stop:run-1')).toBe(stop);
    expect(registry.select('pick:colour')).toBe(pick);
    expect(registry.modal('form:42')).toBe(form);
    expect(registry.button('vote:yes')?.prefix).toBe('vote:');
    expect(registry.modal('poll-form:1')?.prefix).toBe('poll-form:');
    // Kinds are apart too, and an unknown custom id finds nothing.
    expect(registry.button('pick:colour')).toBeUndefined();
    expect(registry.modal('stop:run-1')).toBeUndefined();
    expect(registry.button('continue:123')).toBeUndefined();
  });

  it('calls a command\'s own component handler with the command as `this`, as before', async () => {
    let seen: unknown;
    const buttons = { prefix: 'vote:', marker: 'mine', async handle(this: { marker: string }) { seen = this.marker; } };
    const registry = interactionRegistry([slash('poll', { buttons })]);
    await registry.button('vote:yes')!.handle({} as never, {} as BotServices);
    expect(seen).toBe('mine');
  });

  it('refuses a list where a name or a prefix could mean two entries, naming every problem at once', () => {
    const message = refusal([
      slash('ask'), slash('ask'), onMessage('Quote'), onMessage('Quote'),
      button('stop:'), button('stop:'), button('continue:'), button('continue:now:'), modal(''),
    ]);
    expect(message).toContain('2 slash commands are named "ask"');
    expect(message).toContain('2 message commands are named "Quote"');
    expect(message).toContain('two buttons use the custom id prefix "stop:"');
    expect(message).toContain('the button prefix "continue:" starts the button prefix "continue:now:"');
    expect(message).toContain('a modal has an empty custom id prefix');
    // A command's own button clashes with a standalone one just the same.
    expect(refusal([slash('reset', { buttons: { prefix: 'reset:', handle: handled } }), button('reset:confirm:')])).toContain('"reset:" starts');
  });

  it('accepts the same name or prefix in different kinds, which Discord and the routing keep apart', () => {
    expect(() => interactionRegistry([slash('quote'), onMessage('quote'), button('vote:'), modal('vote:'), select('vote:')])).not.toThrow();
  });

  it('accepts the bot\'s own list, and every command in it is found by its name', () => {
    const registry = interactionRegistry(interactions);
    for (const entry of interactions) {
      if (!('data' in entry)) continue;
      const found = entry.data.toJSON().type === ApplicationCommandType.Message ? registry.messageCommand(entry.data.name) : registry.slash(entry.data.name);
      expect(found).toBe(entry);
    }
    expect(registry.button('stop:abc')).toBe(stopButton);
  });

  it("sends a guild's own command (a skill: registered in the guild, a name not in the list) to the one guild-command route, and nothing else there", () => {
    const route = { kind: 'guild-command' as const, execute: handled };
    const registry = interactionRegistry([slash('ask'), route]);
    expect(registry.guildCommand({ commandName: 'incident-summary', commandGuildId: '42' })).toBe(route);
    // A built-in deployed to the guild is the built-in; a global command not in the list is no skill.
    expect(registry.guildCommand({ commandName: 'ask', commandGuildId: '42' })).toBeUndefined();
    expect(registry.guildCommand({ commandName: 'incident-summary', commandGuildId: null })).toBeUndefined();
    expect(refusal([route, { ...route }])).toContain("2 routes for guild commands: a guild's command could go to either");
  });
});

describe('the bot routes every kind of interaction through the registry', () => {
  let w: ModerationWorld | undefined;
  afterEach(async () => {
    await w?.h.close();
    w = undefined;
  });

  it('slash command, autocomplete, message command, modal and the buttons under runs each reach their handler', async () => {
    w = await startModeration({ production: true });
    const { fake, model, modId } = w;

    const help = await replyTo(fake, fake.sendSlashCommand({ name: 'help' }));
    expect(help.content).toMatch(/ask/i);

    const typed = fake.sendAutocomplete({ name: 'tools', subcommand: 'enable', options: { tool: 'calc' }, focused: 'tool', userId: modId });
    await fake.waitFor(() => typed.autocompleteChoices !== null, 5_000);
    expect(typed.autocompleteChoices).toContainEqual({ name: 'calculate', value: 'calculate' });

    // The message command opens its modal; the modal, routed by its prefix, asks the question.
    const message = fake.sendMessage({ userId: fake.defaults.otherUserId, content: 'The meeting is at 3.' });
    const opened = fake.sendMessageCommand({ name: 'Ask about this message', messageId: message.id });
    await fake.waitFor(() => opened.ackType === 9, 5_000);
    model.script({ content: 'It is at three o\'clock.' });
    fake.submitModal({ interactionId: opened.id, values: { question: 'When is it?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 10_000);
    expect(answer.channelId).toBe(message.id);

    // Stop, Continue and Approve are entries like the commands: each answers in its own words.
    const click = (customId: string) => privateRefusal(fake, fake.clickButton({ messageId: answer.id, customId, channelId: answer.channelId }));
    expect((await click('stop:no-such-run')).content).toBe('That run has already finished.');
    expect((await click(`continue:${fake.defaults.otherUserId}`)).content).toMatch(/^Only the person who asked can let this run continue/);
    expect((await click('approve:no-run:no-call:yes')).content).toBe('This call was already decided, or its run has ended.');
  });

  it('a button or menu from an older version gets a private answer saying so, not silence', async () => {
    w = await startModeration({ production: true });
    const { fake } = w;
    const message = fake.sendMessage({ content: 'An old message with old components.' });
    const pressed = fake.clickButton({ messageId: message.id, customId: 'vote:yes' });
    const answer = await privateRefusal(fake, pressed);
    expect(answer.content).toBe(NOT_KNOWN.button);
    expect(pressed.ackLatencyMs!).toBeLessThan(3_000);
    const picked = fake.clickButton({ messageId: message.id, customId: 'colour-menu', values: ['red'] });
    expect((await privateRefusal(fake, picked)).content).toBe(NOT_KNOWN.select);
  });

  it('refuses to start with an ambiguous list, before connecting', async () => {
    w = await startModeration({ production: true });
    const { fake } = w;
    const clash = { ...stopButton, prefix: 'stop:now:' };
    const connects = () => fake.restCallCounts()['GET /gateway/bot'] ?? 0;
    const before = connects();
    expect(before).toBeGreaterThan(0);
    await expect(startBot(w.h.app.services, { token: fake.token, apiBaseUrl: fake.apiUrl, interactions: [...interactions, clash] }))
      .rejects.toThrow('the button prefix "stop:" starts the button prefix "stop:now:"');
    expect(connects()).toBe(before);
  });
});
