/**
 * The skills' guild commands against Discord's limits and across restarts, end to end (the real
 * discord.js client, the fake Discord that validates registration, production defaults). The built-in
 * commands are deployed to the guild too (`npm run deploy-commands` with DISCORD_GUILD_ID), so skills
 * share the guild's 100 commands with them and must never wipe them. One storage outlives three starts
 * of the bot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.js';
import { createStorage, type Storage } from '../../src/state/index.js';
import { FakeDiscord } from '../fake-discord/index.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { replyTo } from '../policy/discord-helpers.js';
import { runScript } from '../fakes/run-script.js';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';

let fake: FakeDiscord;
let model: FakeOpenAIServer;
let storage: Storage;
let h: Harness | undefined;
let modId: string;

/** The storage the bot is given: its `close` (called by every stop) waits for the last one. */
const kept = () => ({ ...storage, close: async () => undefined }) as Storage;

// A full server needs more skills than SKILLS_MAX_PER_GUILD's default of 50: the case is the first skill
// past Discord's 100 commands, counting the built-in slash commands deployed to the guild.
const env = { SKILLS_MAX_PER_GUILD: '100' };
const builtIns = commands.map((c) => c.data.toJSON());
/** Skills that get a command of their own beside the built-in slash commands. */
const ROOM = 100 - builtIns.filter((c) => (c.type ?? 1) === 1).length;
const skillName = (i: number) => `skill-${String(i).padStart(2, '0')}`;
const NEXT = skillName(ROOM + 1);

beforeAll(async () => {
  fake = await FakeDiscord.start({ log: () => undefined });
  model = await FakeOpenAIServer.start();
  storage = await createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 }, { logger: () => undefined });
  const role = fake.addRole({ name: 'Moderators', permissions: ['ManageGuild'] });
  modId = fake.addUser({ username: 'mod', globalName: 'Mod' }).id;
  fake.addMember({ userId: modId, roleIds: [role.id] });
});
afterAll(async () => {
  await h?.close();
  await storage?.close();
});

const guildRoutes = () => fake.restCalls.filter((c) => c.route.includes('/guilds/:guildId/commands'));
const chatInput = () => fake.commands(fake.defaults.guildId).filter((c) => c.type === 1);

/** A skill as another process (or a previous version) left it in the store. */
const seed = (name: string, at: number) =>
  storage.skills.create(fake.defaults.guildId, { name, ownerId: modId, first: { description: `Skill ${name}`, instructions: `Do ${name} for {topic}.`, inputs: ['topic'], tools: [], authorId: modId, authorName: 'Mod', at } }, () => undefined);

describe('skill commands within 100 commands, across restarts', () => {
  it('at start-up skills fill the guild beside the built-ins to 100 (one GET, one PUT), and the next still runs through /skill run, with a note', async () => {
    fake.registerCommands(builtIns, { guildId: fake.defaults.guildId });
    for (let i = 1; i <= ROOM; i++) await seed(skillName(i), i);
    h = await startHarness({ env, storage: kept() }, { fake, model });
    await h.app.skillsSynced;
    expect(guildRoutes().map((c) => `${c.method} ${c.status}`)).toEqual(['GET 200', 'PUT 200']);
    const names = chatInput().map((c) => c.name);
    expect(names).toHaveLength(100);
    // Nothing of the deploy was wiped: every built-in is still there, with its id.
    for (const b of builtIns) expect(fake.commands(fake.defaults.guildId).some((c) => c.name === b.name)).toBe(true);

    const created = await replyTo(fake, fake.sendSlashCommand({ name: 'skill', subcommand: 'create', options: { name: NEXT, description: 'The one past the room', instructions: 'Do the last thing for {topic}.', inputs: 'topic' }, userId: modId }));
    expect(created.content).toContain(`✅ Created the skill \`/${NEXT}\``);
    expect(created.content).toContain(`\`/${NEXT}\` has no command of its own here: this server has as many commands as Discord allows (100, my own deployed here included). Run it with \`/skill run name:${NEXT}\`.`);
    expect(chatInput()).toHaveLength(100);
    // No request was refused: the registrar knew there was no room.
    expect(fake.restCalls.filter((c) => c.errorCode === 30032)).toEqual([]);

    model.script({ content: 'Ninety.' });
    const since = fake.mark();
    const ran = fake.sendSlashCommand({ name: 'skill', subcommand: 'run', options: { name: NEXT, input: 'limits' } });
    await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('Ninety.'), 10_000, { since });
    expect(fake.message(ran.originalMessageId!)!.content).toContain(`\`/${NEXT}\` has no command of its own here, so it ran through \`/skill run\`.`);
    expect(String(model.requests.at(-1)!.body.messages[0]!.content)).toContain('Do the last thing for <input name="topic">limits</input>.');
  });

  it('a restart with nothing changed costs one GET', async () => {
    await h!.close({ keepFakes: true });
    fake.resetRestCalls();
    h = await startHarness({ env, storage: kept() }, { fake, model });
    await h.app.skillsSynced;
    expect(guildRoutes().map((c) => c.method)).toEqual(['GET']);
  });

  it('a skill removed and one added while the bot was down: the next start deletes the one command and gives the freed room to the oldest skill without one', async () => {
    await h!.close({ keepFakes: true });
    await storage.skills.remove(fake.defaults.guildId, 'skill-01');
    fake.resetRestCalls();
    h = await startHarness({ env, storage: kept() }, { fake, model });
    await h.app.skillsSynced;
    expect(guildRoutes().map((c) => c.method)).toEqual(['GET', 'DELETE', 'POST']);
    const names = chatInput().map((c) => c.name);
    expect(names).not.toContain('skill-01');
    expect(names).toContain(NEXT);
    expect(names).toHaveLength(100);
  });

  it("npm run deploy-commands to the server sends its skills' commands back with the built-ins: a deploy wipes none", async () => {
    const before = chatInput().map((c) => c.name).sort();
    const { code, stdout } = await runScript('app/deploy-commands.ts', [], { DISCORD_TOKEN: fake.token, DISCORD_API_BASE_URL: fake.apiUrl, DISCORD_GUILD_ID: fake.defaults.guildId });
    expect(code).toBe(0);
    expect(stdout).toContain(`The server's ${ROOM} skill commands were kept.`);
    expect(chatInput().map((c) => c.name).sort()).toEqual(before);
  }, 30_000);
});
