import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runScript } from '../fakes/run-script.js';
import { FakeOpenAIServer } from '../fakes/openai-server.js';
import { tempDir } from '../state/helpers/targets.js';
import { json, startLocalServer } from '../tools/helpers/local-server.js';
import { decodePng } from '../tools/helpers/png.js';

let server: FakeOpenAIServer;
beforeEach(async () => {
  server = await FakeOpenAIServer.start();
});
afterEach(async () => {
  await server.close();
});

const ask = (args: string[], env: Record<string, string>, input = '') => runScript('src/cli/ask.ts', args, env, input);

// KEYV_URL in memory: the knowledge base opens from it, and a test must not touch the project's data/.
const env = () => ({ OPENAI_BASE_URL: server.baseURL, OPENAI_MODEL: 'fake', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', KEYV_URL: 'memory:' });

describe('npm run ask', () => {
  it('prints one JSON object per event with --json and exits 0 on an answer, using the real tools', async () => {
    server.script(
      { content: 'Computing and checking the time.', toolCalls: [{ name: 'calculate', arguments: { expression: '6 * 7' } }, { name: 'current_time', arguments: { timezone: 'UTC' } }] },
      { content: 'It is 42.' },
    );
    const { code, stdout } = await ask(['--json', '--protocol', 'native', 'What is 6 times 7?'], env());
    expect(code).toBe(0);
    let events = stdout.trim().split('\n').map((line) => JSON.parse(line));
    // Text as it streams, then the events that settle each step.
    const deltas = events.filter((e) => e.type === 'text-delta');
    expect(deltas.map((e) => e.text).join('')).toBe('Computing and checking the time.It is 42.');
    events = events.filter((e) => e.type !== 'text-delta');
    expect(events.map((e) => e.type)).toEqual(['run-start', 'step-start', 'thought', 'action', 'action', 'observation', 'observation', 'step-start', 'answer', 'run-end']);
    expect(events[3]).toMatchObject({ tool: 'calculate', input: { expression: '6 * 7' } });
    expect(events[5]).toMatchObject({ output: '42', isError: false });
    expect(events[6].output).toMatch(/UTC/);
    expect(events[8]).toMatchObject({ text: 'It is 42.' });
    expect(events[9]).toMatchObject({ reason: 'answer', steps: 2 });
    expect(events[0].tools).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'plot']);
  }, 30_000);

  it('prints steps readably by default', async () => {
    server.script({ content: 'Thought: add\nAction: calculate: 1 + 1\nPAUSE' }, { content: 'Answer: two' });
    const { code, stdout } = await ask(['--protocol', 'text', 'one plus one'], env());
    expect(code).toBe(0);
    expect(stdout).toContain('Thought: add');
    expect(stdout).toContain('Action:  calculate(1 + 1)');
    expect(stdout).toMatch(/Result: .*\n {3}2\n/);
    expect(stdout).toContain('Answer: two');
  }, 30_000);

  it('lets a person inject an observation or stop in --step mode', async () => {
    server.script({ toolCalls: [{ name: 'calculate', arguments: { expression: '1/0' } }] }, { content: 'You said infinity.' });
    const { code, stdout } = await ask(['--step', '--protocol', 'native', 'divide'], env(), 'infinity\n');
    expect(stdout).toContain('run calculate(1/0)?');
    expect(stdout).toMatch(/Result: .*\n {3}infinity/);
    expect(code).toBe(0);
    expect(server.requests[1]!.body.messages.at(-1)!.content).toMatch(/^infinity/);
  }, 30_000);

  it('exits non-zero with a clear message when the model server is down', async () => {
    const downEnv = { ...env(), OPENAI_MAX_RETRIES: '0' };
    await server.close();
    const { code, stderr } = await ask(['hello'], downEnv);
    expect(code).toBe(1);
    expect(stderr).toMatch(/Could not reach the model server/);
    server = await FakeOpenAIServer.start();
  }, 30_000);

  it('still exits non-zero when the model fails after the calculator has started (its worker is shut down first)', async () => {
    server.script({ toolCalls: [{ name: 'calculate', arguments: { expression: '2 + 2' } }] }, { status: 500, error: 'upstream broke' });
    const { code, stderr } = await ask(['--protocol', 'native', 'two plus two'], { ...env(), OPENAI_MAX_RETRIES: '0' });
    expect(stderr).toContain('upstream broke');
    expect(code).toBe(1);
  }, 30_000);

  it('names missing configuration and bad flags', async () => {
    const missing = await ask(['hello'], {});
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('OPENAI_API_KEY is missing');
    const bad = await ask(['--protocol', 'smoke', '--max-steps', '0'], env());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/a question is required; --protocol must be auto, native or text; --max-steps must be/);
  }, 30_000);

  it('searches the collection --collection names (what npm run kb filled), and offers search_knowledge only when it has documents', async () => {
    const dir = tempDir('ask-kb');
    const faq = path.join(dir, 'faq.md');
    fs.writeFileSync(faq, '# FAQ\n\n## Raids\n\nRaid night is every Friday at 20:00 UTC.');
    const kbEnv = { ...env(), KEYV_URL: `sqlite://${path.join(dir, 'threadwise.sqlite')}` };
    const added = await runScript('src/cli/kb.ts', ['add', faq, '--guild', 'guild-1'], kbEnv);
    expect(added.code).toBe(0);

    server.script(
      { toolCalls: [{ name: 'search_knowledge', arguments: { query: 'raid night' } }] },
      { content: 'Fridays at 20:00 UTC.' },
    );
    const found = await ask(['--json', '--protocol', 'native', '--collection', 'guild-1', 'When is raid night?'], kbEnv);
    expect(found.stderr).toBe('');
    expect(found.code).toBe(0);
    const events = found.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(events[0].tools).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'search_knowledge', 'plot']);
    const observation = events.find((e) => e.type === 'observation');
    expect(observation.output).toMatch(/^1 passage from this server's documents, best first:\n\n\[1\] FAQ › Raids\nNo link \(a document added from a file\)\.\nRaid night is every Friday/);

    // The default collection is empty: the tool is not offered at all.
    server.script({ content: 'I do not know.' });
    const empty = await ask(['--json', 'When is raid night?'], kbEnv);
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout.split('\n')[0]!).tools).toEqual(['calculate', 'wikipedia', 'current_time', 'read_url', 'plot']);

    const bad = await ask(['--collection', 'no spaces!', 'hi'], kbEnv);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--collection: "no spaces!" is not a collection name/);
  }, 60_000);

  it('with EMBEDDING_MODEL, search_knowledge embeds the query and finds a passage by meaning, as in a thread', async () => {
    const dir = tempDir('ask-meaning');
    const guide = path.join(dir, 'joining.md');
    // No word in common with the question below: only meaning ("pay" and "free" are one concept to the fake) can find it.
    fs.writeFileSync(guide, '# Guild\n\nJoining is free for everyone.');
    const meaningEnv = { ...env(), KEYV_URL: `sqlite://${path.join(dir, 'threadwise.sqlite')}`, EMBEDDING_MODEL: 'fake-embed' };
    expect((await runScript('src/cli/kb.ts', ['add', guide, '--guild', 'guild-1'], meaningEnv)).code).toBe(0);
    expect(server.embeddingRequests).toHaveLength(1);

    const query = 'how much must I pay';
    server.script({ toolCalls: [{ name: 'search_knowledge', arguments: { query } }] }, { content: 'Nothing: it is free.' });
    const found = await ask(['--json', '--protocol', 'native', '--collection', 'guild-1', 'How much must I pay to join?'], meaningEnv);
    expect(found.stderr).toBe('');
    expect(found.code).toBe(0);
    // The tool's query went to the embedding server, as the bot's search sends it.
    expect(server.embeddingRequests.slice(1)).toEqual([{ model: 'fake-embed', input: [query] }]);
    const events = found.stdout.trim().split('\n').map((line) => JSON.parse(line));
    const observation = events.find((e) => e.type === 'observation');
    expect(observation.output).toMatch(/^1 passage from this server's documents, best first:\n\n\[1\] Guild\n.*\nJoining is free for everyone\./);
    // The model is told it may rephrase by meaning, as in a thread with meaning search on.
    const offered = server.requests[0]!.body.tools?.find((t) => t.function.name === 'search_knowledge');
    expect(offered?.function.description).toMatch(/matches meaning as well as words/);
  }, 60_000);

  it('prints web search results and writes the charts plot draws to files it names', async () => {
    const searx = await startLocalServer({
      '/search': json({ query: 'node 24', number_of_results: 0, results: [{ url: 'https://nodejs.org/en/blog/release/v24.0.0', title: 'Node.js 24.0.0', content: 'Released on 6 May 2025.', engine: 'brave', score: 1, category: 'general' }], answers: [], corrections: [], infoboxes: [], suggestions: [], unresponsive_engines: [] }),
    });
    try {
      const dir = tempDir('ask-charts');
      fs.writeFileSync(path.join(dir, 'sales.png'), 'an older file, kept');
      const spec = { title: 'Sales', data: { values: [{ q: 'Q1', n: 3 }, { q: 'Q2', n: 5 }] }, mark: 'bar', encoding: { x: { field: 'q', type: 'nominal' }, y: { field: 'n', type: 'quantitative' } } };
      server.script(
        { toolCalls: [{ name: 'web_search', arguments: { query: 'node 24' } }, { name: 'plot', arguments: { spec } }] },
        { content: 'Node.js 24 came out on 6 May 2025 [1].' },
      );
      const { code, stdout } = await ask(['--protocol', 'native', '--charts', dir, 'When did Node 24 come out? And chart the sales.'], { ...env(), SEARXNG_URL: searx.origin });
      expect(code).toBe(0);
      expect(stdout).toContain('[1] Node.js 24.0.0\n   URL: https://nodejs.org/en/blog/release/v24.0.0');
      expect(stdout).toContain(`Chart:   written to ${path.join(dir, 'sales-2.png')}`);
      expect(stdout).toContain('  [1] Node.js 24.0.0 <https://nodejs.org/en/blog/release/v24.0.0>');
      expect(fs.readFileSync(path.join(dir, 'sales.png'), 'utf8')).toBe('an older file, kept');
      expect(decodePng(fs.readFileSync(path.join(dir, 'sales-2.png'))).width).toBeGreaterThan(100);

      // --json names the files written instead of printing their bytes.
      server.script({ toolCalls: [{ name: 'plot', arguments: { spec } }] }, { content: 'Drawn.' });
      const asJson = await ask(['--json', '--protocol', 'native', '--charts', dir, 'Chart the sales again.'], env());
      expect(asJson.code).toBe(0);
      const observation = asJson.stdout.trim().split('\n').map((line) => JSON.parse(line)).find((e) => e.type === 'observation');
      expect(observation.attachments).toEqual([{ name: 'sales.png', contentType: 'image/png', bytes: fs.statSync(path.join(dir, 'sales-3.png')).size, path: path.join(dir, 'sales-3.png') }]);
    } finally {
      await searx.close();
    }
  }, 60_000);
});
