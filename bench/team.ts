/**
 * A busy team thread with the production defaults (`.env.example`): after an `/ask`, three members post
 * 20 short notes within 3 s while a model that takes a second per reply answers. Runs and model tokens
 * (every request's messages counted with the real tokenizer) with the waiting notes answered together,
 * against one run per note (the batch cap set to 1), measured in the same process run.
 */
import { startHarness } from '../test/discord/harness.js';
import { TokenCounter } from '../src/state/index.js';
import type { ChatMessage } from '../src/agent/types.js';
import type { BenchSection } from './stats.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Burst {
  runs: number;
  tokens: number;
  seconds: number;
}

async function burst(maxMessages: number | undefined): Promise<Burst> {
  const h = await startHarness({ production: true, ...(maxMessages ? { followUpBatch: { maxMessages } } : {}) });
  const { fake, model } = h;
  try {
    const carol = fake.addUser({ username: 'carol', globalName: 'Carol' });
    fake.addMember({ userId: carol.id });
    const people = [fake.defaults.userId, fake.defaults.otherUserId, carol.id];
    model.script(...Array.from({ length: 40 }, (_, i) => ({ content: `Noted (${i}).`, delayMs: 1_000 })));
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Plan for the release?' } });
    const threadId = (await fake.waitForMessage((m) => m.content.startsWith('### Answer'), 10_000)).channelId;
    const before = model.requests.length;
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      fake.sendMessage({ channelId: threadId, userId: people[i % 3]!, content: `note ${i + 1}: item ${i + 1} of the release checklist is done` });
      await sleep(140);
    }
    await sleep(200);
    while (h.app.services.turns.runs.size > 0 || h.app.services.turns.queue.activeThreads > 0) await sleep(50);
    const seconds = (performance.now() - started) / 1000;
    const counter = new TokenCounter('o200k_base');
    const requests = model.requests.slice(before);
    const tokens = requests.reduce((sum, r) => sum + (r.body.messages as ChatMessage[]).reduce((n, m) => n + counter.message(m), 0), 0);
    return { runs: requests.length, tokens, seconds };
  } finally {
    await h.close();
  }
}

export async function benchTeam(): Promise<BenchSection> {
  const perMessage = await burst(1);
  const batched = await burst(undefined);
  return {
    name: 'A busy team thread: 20 notes from 3 members within 3 s (model: 1 s per reply)',
    rows: [
      { mode: 'one run per note (baseline)', runs: perMessage.runs, 'prompt tokens': perMessage.tokens, 'all answered after (s)': perMessage.seconds.toFixed(1), 'runs vs baseline': '1.00', 'tokens vs baseline': '1.00' },
      {
        mode: 'waiting notes answered together',
        runs: batched.runs,
        'prompt tokens': batched.tokens,
        'all answered after (s)': batched.seconds.toFixed(1),
        'runs vs baseline': (batched.runs / perMessage.runs).toFixed(2),
        'tokens vs baseline': (batched.tokens / perMessage.tokens).toFixed(2),
      },
    ],
    notes: ['Prompt tokens: every request the model received, its messages counted with o200k_base (the system prompt and history included, tool schemas not).'],
  };
}
