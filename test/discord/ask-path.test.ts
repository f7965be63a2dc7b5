/**
 * The path of a question, measured rather than drawn: V8's precise coverage while one /ask (a tool call,
 * then the answer) goes through the bot, counting the files of the Discord side (commands/ and
 * src/discord/) whose code ran. docs/architecture.md's "path of a question" names these files; a change that makes
 * the path longer, or sends a turn through another origin's code, shows here.
 */
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { isFinalAnswer, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));

it('one /ask runs code in at most 25 files of the Discord side (member memory included), and in no other origin\'s', async () => {
  h = await startHarness();
  const { fake, model } = h;
  // A first question warms the caches (module loading, the first guild reads), which are not the path.
  model.script({ content: 'Warm.' });
  fake.sendSlashCommand({ name: 'ask', options: { question: 'Warm?' } });
  await fake.waitForMessage(isFinalAnswer, 10_000);
  await new Promise((r) => setTimeout(r, 300));
  model.script({ content: 'I will compute it.', toolCalls: [{ name: 'calculate', arguments: { expression: '17 * 3' } }] }, { content: '17 × 3 is **51**.' });

  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage'); // from zero
  const interaction = fake.sendSlashCommand({ name: 'ask', options: { question: 'What is 17 times 3?' } });
  await fake.waitForMessage((m) => isFinalAnswer(m) && m.content.includes('51'), 10_000);
  const reply = fake.message(interaction.originalMessageId!)!;
  // Generous: V8's coverage slows the bot, and a busy machine more so.
  await fake.waitFor(() => reply.content.includes('Full answer and steps'), 15_000);
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();

  const ran = new Set<string>();
  for (const script of result) {
    if (!script.url.startsWith('file://')) continue;
    const file = path.relative(ROOT, fileURLToPath(script.url.split('?')[0]!));
    // A function of the file ran (the module's own top level, run when it was loaded, does not count).
    if (script.functions.some((f) => f.functionName !== '' && f.ranges[0]!.count > 0)) ran.add(file);
  }
  const discordSide = [...ran].filter((f) => f.startsWith('commands/') || f.startsWith('src/discord/')).sort();
  // Member memory is on by default: its hookups are part of the path.
  expect(discordSide.length, discordSide.join('\n')).toBeLessThanOrEqual(25);
  expect(discordSide).toContain('commands/ask.ts');
  expect(discordSide.filter((f) => /^commands\/(?!ask\.ts)/.test(f) || /buttons\//.test(f))).toEqual([]);
});
