import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tools } from '../../commands/tools.js';
import { askOnce, command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

describe('/tools end to end', () => {
  it('is registered for Manage Server only, and a member without it is refused at run time with nothing changed', async () => {
    expect(tools.data.toJSON().default_member_permissions).toBe(PermissionFlagsBits.ManageGuild.toString());
    w = await startModeration();
    const { fake, guildId } = w;
    // Discord hides a Manage Server command from her, until an admin opens it to @everyone in Integrations.
    expect(() => fake.sendSlashCommand({ name: 'tools', options: sub('list'), userId: fake.defaults.userId })).toThrow(/lacks the default member permissions/);
    fake.setCommandPermissions({ command: 'tools', permissions: [{ id: guildId, type: 1, permission: true }] });
    const reply = await command(fake, 'tools', sub('disable', { tool: 'calculate' }), { userId: fake.defaults.userId });
    expect(reply.content).toMatch(/Only members with the \*\*Manage Server\*\* permission can use `\/tools`\. Nothing was changed/);
    expect(reply.flags & 64).toBe(64); // ephemeral
    const settings = await w.h.storage.guildSettings.get(guildId);
    expect(settings.toolRules).toEqual([]);
    expect(settings.auditLog).toEqual([]);
    expect((await askOnce(w)).offered).toContain('calculate');
  });

  it('a moderator disables calculate in one channel: the next /ask there is not offered it, another channel still is', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    const { channelId, otherChannelId } = fake.defaults;
    const reply = await command(fake, 'tools', sub('disable', { tool: 'calculate', channel: channelId }), { userId: modId });
    expect(reply.content).toBe(`✅ Done: disabled \`calculate\` in <#${channelId}>. Runs use it from their next step.`);

    expect((await askOnce(w, { channelId })).offered).toEqual(['wikipedia', 'current_time', 'plot', 'remember', 'forget']);
    // The first thread is saved by now, so the server has a past thread to search.
    expect((await askOnce(w, { channelId: otherChannelId })).offered).toEqual(['calculate', 'wikipedia', 'current_time', 'search_threads', 'plot', 'remember', 'forget']);

    const listed = await command(fake, 'tools', sub('list'), { userId: modId, channelId });
    expect(listed.content).toContain(`⛔ \`calculate\`: channel rule (disabled in <#${channelId}>)`);
    expect(listed.content).toContain('⛔ `read_url`: built-in default (off: it reaches the web');
    expect(listed.content).toContain('✅ `wikipedia`: built-in default');
  });

  it('a role rule: a member with @Researchers is offered read_url, one without is not, and /tools list explains both', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    const researchers = fake.addRole({ name: 'Researchers' });
    fake.addMember({ userId: fake.defaults.otherUserId, roleIds: [researchers.id] });
    const reply = await command(fake, 'tools', sub('enable', { tool: 'read_url', role: researchers.id }), { userId: modId });
    expect(reply.content).toContain(`enabled \`read_url\` for members with <@&${researchers.id}>`);

    expect((await askOnce(w, { userId: fake.defaults.otherUserId })).offered).toContain('read_url');
    expect((await askOnce(w, { userId: fake.defaults.userId })).offered).not.toContain('read_url');

    const asResearcher = await command(fake, 'tools', sub('list', { role: researchers.id }), { userId: modId });
    expect(asResearcher.content).toContain(`✅ \`read_url\`: role rule (enabled for members with <@&${researchers.id}>); without that role it would be off`);
    const asMod = await command(fake, 'tools', sub('list'), { userId: modId });
    expect(asMod.content).toContain('⛔ `read_url`: built-in default');
    expect(asMod.content).toContain(`• \`read_url\` enabled for members with <@&${researchers.id}>`);
  });

  it('a category channel makes a category rule, and a channel rule inside it still wins', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    const { categoryId, channelId, otherChannelId } = fake.defaults;
    await command(fake, 'tools', sub('disable', { tool: 'wikipedia', channel: categoryId }), { userId: modId });
    await command(fake, 'tools', sub('enable', { tool: 'wikipedia', channel: otherChannelId }), { userId: modId });
    expect((await askOnce(w, { channelId })).offered).not.toContain('wikipedia');
    expect((await askOnce(w, { channelId: otherChannelId })).offered).toContain('wikipedia');
    const rules = (await w.h.storage.guildSettings.get(w.guildId)).toolRules;
    expect(rules).toEqual([{ tool: 'wikipedia', allow: false, categoryId }, { tool: 'wikipedia', allow: true, channelId: otherChannelId }]);
  });

  it('every change is audited and posted to the log channel without pinging anyone; /tools audit shows it', async () => {
    w = await startModeration();
    const { fake, modId, guildId } = w;
    const log = fake.addChannel({ name: 'mod-log', parentId: fake.defaults.categoryId });
    const researchers = fake.addRole({ name: 'Researchers', mentionable: true });
    await command(fake, 'tools', sub('log-channel', { channel: log.id }), { userId: modId });
    await command(fake, 'tools', sub('enable', { tool: 'read_url', role: researchers.id }), { userId: modId });

    const posted = await fake.waitForMessage((m) => m.channelId === log.id && m.content.includes('read_url'));
    expect(posted.content).toBe(`🛠️ **Mod Erator** (<@${modId}>) enabled \`read_url\` for members with <@&${researchers.id}>`);
    expect(posted.allowedMentions).toMatchObject({ parse: [] });
    expect(posted.pings).toEqual({ everyone: false, users: [], roles: [] });

    const { auditLog } = await w.h.storage.guildSettings.get(guildId);
    expect(auditLog.map((e) => e.action)).toEqual(['tools.log-channel', 'tools.enable']);
    expect(auditLog[1]).toMatchObject({ actorId: modId, actorName: 'Mod Erator', detail: `enabled \`read_url\` for members with <@&${researchers.id}>` });
    expect(Date.now() - auditLog[1]!.at).toBeLessThan(60_000);

    const audit = await command(fake, 'tools', sub('audit', { count: 5 }), { userId: modId });
    const lines = audit.content.split('\n');
    expect(lines[0]).toBe('**Last 2 changes** (newest first, 2 recorded):');
    expect(lines[1]).toMatch(new RegExp(`^<t:\\d+:f> \\*\\*Mod Erator\\*\\* \\(<@${modId}>\\) enabled \`read_url\``));
    expect(lines[2]).toContain(`set the moderation log channel to <#${log.id}>`);
  });

  it('reset removes the rules in a scope, and an unknown tool name is refused with the valid names', async () => {
    w = await startModeration();
    const { fake, modId, guildId } = w;
    await command(fake, 'tools', sub('disable', { tool: 'calculate' }), { userId: modId });
    const unknown = await command(fake, 'tools', sub('enable', { tool: 'shell' }), { userId: modId });
    expect(unknown.content).toBe('There is no tool named `shell`. Valid tools: `calculate`, `wikipedia`, `current_time`, `read_url`, `search_knowledge`, `search_threads`, `plot`, `remember`, `forget`. Nothing was changed.');
    const reset = await command(fake, 'tools', sub('reset', { tool: 'calculate' }), { userId: modId });
    expect(reset.content).toContain('reset `calculate` for the whole server (removed 1 rule: `calculate` disabled for the whole server)');
    const again = await command(fake, 'tools', sub('reset'), { userId: modId });
    expect(again.content).toBe('Nothing to reset: there are no rules for every tool for the whole server.');
    const settings = await w.h.storage.guildSettings.get(guildId);
    expect(settings.toolRules).toEqual([]);
    expect(settings.auditLog.map((e) => e.action)).toEqual(['tools.disable', 'tools.reset']);
  });

  it('autocomplete offers the tool names matching what is typed', async () => {
    w = await startModeration();
    const { fake, modId } = w;
    const all = fake.sendAutocomplete({ name: 'tools', userId: modId, focused: 'tool', options: sub('enable', { tool: '' }, 'tool') });
    await fake.waitForCallback(all.id);
    expect((all.autocompleteChoices as Array<{ value: string }>).map((c) => c.value)).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'search_knowledge', 'search_threads', 'plot', 'remember', 'forget']);
    const some = fake.sendAutocomplete({ name: 'tools', userId: modId, focused: 'tool', options: sub('disable', { tool: 'READ' }, 'tool') });
    await fake.waitForCallback(some.id);
    expect(some.autocompleteChoices).toEqual([{ name: 'read_url (reaches the web: off by default)', value: 'read_url' }, { name: 'search_threads', value: 'search_threads' }]);
  });
});
