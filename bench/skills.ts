/**
 * Skills (issue 45) with the production defaults (`.env.example`): the REST calls that register and
 * update skills' guild commands (10 created, one edited, a restart with nothing changed), and what a
 * skill's run costs against an `/ask` of the same words: REST calls to Discord and model-request tokens
 * (every request's messages counted with the real tokenizer), as ratios measured in the same run.
 */
import { startHarness, isFinalAnswer, type Harness } from '../test/discord/harness.js';
import { FakeDiscord } from '../test/fake-discord/index.js';
import { FakeOpenAIServer } from '../test/fakes/openai-server.js';
import { createStorage, TokenCounter, type Storage } from '../src/state/index.js';
import type { ChatMessage } from '../src/agent/types.js';
import type { BenchSection } from './stats.js';

const guildCalls = (fake: FakeDiscord, since: number) => fake.restCalls.slice(since).filter((c) => c.route.includes('/guilds/:guildId/commands'));
const calls = (list: Array<{ method: string }>) => `${list.length} (${[...new Set(list.map((c) => c.method))].map((m) => `${list.filter((c) => c.method === m).length} ${m}`).join(', ') || 'none'})`;

async function reply(fake: FakeDiscord, interactionId: string): Promise<void> {
  await fake.waitForMessage((m) => m.interactionId === interactionId && (m.flags & 128) === 0 && m.content !== '', 10_000);
}

/** One turn started by `start`, answered at once: its REST calls and its model request's tokens. */
async function turnCost(h: Harness, start: () => void, answer: string): Promise<{ rest: number; tokens: number }> {
  const counter = new TokenCounter('o200k_base');
  const before = h.model.requests.length;
  const restBefore = h.fake.restCalls.length;
  h.model.script({ content: answer });
  const since = h.fake.mark();
  start();
  await h.fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes(answer), 10_000, { since });
  // The channel reply's last edit (the link to the answer) is part of the turn.
  await new Promise((r) => setTimeout(r, 300));
  const tokens = h.model.requests.slice(before).reduce((sum, r) => sum + (r.body.messages as ChatMessage[]).reduce((n, m) => n + counter.message(m), 0), 0);
  return { rest: h.fake.restCalls.length - restBefore, tokens };
}

export async function benchSkills(): Promise<BenchSection[]> {
  const fake = await FakeDiscord.start({ log: () => undefined });
  const model = await FakeOpenAIServer.start();
  const storage: Storage = await createStorage({ keyvUrl: 'memory:', historyTokenBudget: 8_000 }, { logger: () => undefined });
  const kept = () => ({ ...storage, close: async () => undefined }) as Storage;
  const role = fake.addRole({ name: 'Moderators', permissions: ['ManageGuild'] });
  const mod = fake.addUser({ username: 'mod' }).id;
  fake.addMember({ userId: mod, roleIds: [role.id] });
  let h = await startHarness({ storage: kept() }, { fake, model });
  try {
    let mark = fake.restCalls.length;
    for (let i = 0; i < 10; i++) {
      const made = fake.sendSlashCommand({ name: 'skill', subcommand: 'create', userId: mod, options: { name: `skill-${i}`, description: `Skill ${i}`, instructions: `Summarise {text} as skill ${i} would.`, inputs: 'text' } });
      await reply(fake, made.id);
    }
    const created = guildCalls(fake, mark);
    const edit = async (values: Record<string, string>) => {
      mark = fake.restCalls.length;
      const opened = fake.sendSlashCommand({ name: 'skill', subcommand: 'edit', userId: mod, options: { name: 'skill-0' } });
      await fake.waitFor(() => opened.modal !== undefined, 5_000);
      await reply(fake, fake.submitModal({ interactionId: opened.id, values: { inputs: 'text', tools: '', ...values } }).id);
      return guildCalls(fake, mark);
    };
    const described = await edit({ description: 'Skill 0, described anew', instructions: 'Summarise {text} as skill 0 would.' });
    const worded = await edit({ description: 'Skill 0, described anew', instructions: 'Summarise {text} in two sentences.' });
    await h.close({ keepFakes: true });
    mark = fake.restCalls.length;
    h = await startHarness({ storage: kept() }, { fake, model });
    await h.app.skillsSynced;
    const restart = guildCalls(fake, mark);

    const words = 'the database was down from 10:02 to 10:47';
    const ask = await turnCost(h, () => fake.sendSlashCommand({ name: 'ask', options: { question: `/skill-1 text: ${words}` } }), 'Asked.');
    const skill = await turnCost(h, () => fake.sendSlashCommand({ name: 'skill-1', options: { text: words } }), 'Ran.');
    return [
      {
        name: 'Skills: REST calls to register and update their guild commands',
        rows: [
          { change: '10 skills created, one after another', 'guild-command calls': calls(created) },
          { change: 'one edited: a new description', 'guild-command calls': calls(described) },
          { change: 'one edited: its instructions only', 'guild-command calls': calls(worded) },
          { change: 'restart, nothing changed', 'guild-command calls': calls(restart) },
        ],
        notes: ['Counted at the fake Discord: every request to `/applications/:id/guilds/:id/commands` (and one command of it). The first look at a guild is a GET, kept and updated from each answer.'],
      },
      {
        name: "Skills: a skill's run against an /ask of the same words (production defaults)",
        rows: [
          { turn: '/ask (baseline)', 'REST calls': ask.rest, 'model-request tokens': ask.tokens, 'REST vs /ask': '1.00', 'tokens vs /ask': '1.00' },
          { turn: '/skill-1 text:', 'REST calls': skill.rest, 'model-request tokens': skill.tokens, 'REST vs /ask': (skill.rest / ask.rest).toFixed(2), 'tokens vs /ask': (skill.tokens / ask.tokens).toFixed(2) },
        ],
        notes: ["Tokens: the model request's messages counted with o200k_base (tool schemas not): the skill adds its instructions with the member's words quoted, and offers no tools (it lists none), so its request has no tool schemas at all."],
      },
    ];
  } finally {
    await h.close();
    await storage.close();
  }
}
