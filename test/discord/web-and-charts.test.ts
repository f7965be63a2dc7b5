/**
 * Web search and charts end to end: the real discord.js client against the fake Discord, the bot
 * started through `startApp` with the production defaults, a SearXNG stand-in on 127.0.0.1.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { command, startModeration, sub, type ModerationWorld } from '../policy/discord-helpers.js';
import { json, startLocalServer, type LocalServer } from '../tools/helpers/local-server.js';
import { decodePng, inkShare } from '../tools/helpers/png.js';
import { isFinalAnswer } from './harness.js';

let w: ModerationWorld | undefined;
afterEach(async () => {
  await w?.h.close();
  w = undefined;
});

describe('web search and charts in a thread', () => {
  let web: LocalServer;
  const article = () => `${web.origin}/news/node-24`;
  beforeAll(async () => {
    web = await startLocalServer({
      '/search': (req, res, url) =>
        json({
          query: url.searchParams.get('q'),
          number_of_results: 0,
          results: [
            { url: article(), title: 'Node.js 24 released', content: 'Node.js 24 is out with V8 13.6.', publishedDate: '2025-05-06T00:00:00', engine: 'brave', engines: ['brave'], score: 1, category: 'general' },
            { url: `${web.origin}/docs/releases`, title: 'Previous releases', content: 'Release schedule of Node.js.', engine: 'brave', engines: ['brave'], score: 0.5, category: 'general' },
          ],
          answers: [],
          corrections: [],
          infoboxes: [],
          suggestions: [],
          unresponsive_engines: [],
        })(req, res, url),
      '/news/node-24': (_req, res) =>
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<html><head><title>Node.js 24 released</title></head><body><p>Node.js 24.0.0 was released on 6 May 2025. It enters LTS in October.</p></body></html>'),
    });
  });
  afterAll(() => web.close());

  it('web_search then read_url lead to an answer with its links shown, and the daily cap refuses the next search', async () => {
    // WEB_SEARCH_DAILY 2 (default 100): reaching the cap takes two searches instead of a hundred.
    w = await startModeration({ env: { SEARXNG_URL: web.origin, WEB_SEARCH_DAILY: '2' }, allowLoopbackUrls: true });
    const { fake, model, modId } = w;
    // Both reach the web: off until a moderator enables them.
    await command(fake, 'tools', sub('enable', { tool: 'web_search' }), { userId: modId });
    await command(fake, 'tools', sub('enable', { tool: 'read_url' }), { userId: modId });

    model.script(
      { content: 'Searching.', toolCalls: [{ name: 'web_search', arguments: { query: 'node.js 24 release date' } }] },
      { content: 'Opening the first result.', toolCalls: [{ name: 'read_url', arguments: { url: article() } }] },
      { content: 'Node.js 24 was released on 6 May 2025 [1].' },
    );
    let since = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'When did Node.js 24 come out?' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 15_000, { since });
    expect(answer.content).toContain('Node.js 24 was released on 6 May 2025 [1].');
    expect(answer.content).toContain(`**Sources:** [1] Node.js 24 released ([127.0.0.1](<${article()}>)) · [2] Previous releases ([127.0.0.1](<${web.origin}/docs/releases>))`);
    const log = fake.messagesIn(answer.channelId).filter((m) => m.authorId === fake.botId && m.id !== answer.id).map((m) => m.content).join('\n');
    expect(log).toContain('🔧 `web_search(node.js 24 release date)`');
    expect(log).toContain(`🔧 \`read_url(${article()})\``);
    // The model saw numbered results it could cite, then the page.
    const toolMessages = model.requests[2]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(toolMessages[0]).toContain(`[1] Node.js 24 released\nURL: ${article()}\nDate: 2025-05-06T00:00:00\nNode.js 24 is out with V8 13.6.`);
    expect(toolMessages[1]).toContain('Node.js 24.0.0 was released on 6 May 2025.');

    // A second search today still fits; the third is refused without reaching the provider.
    for (const expectRefused of [false, true]) {
      model.script({ toolCalls: [{ name: 'web_search', arguments: { query: 'node.js 24 lts date' } }] }, { content: 'Done.' });
      const before = model.requests.length;
      since = fake.mark();
      fake.sendSlashCommand({ name: 'ask', options: { question: 'And when is LTS?' } });
      await fake.waitForMessage(isFinalAnswer, 15_000, { since });
      const observed = String(model.requests[before + 1]!.body.messages.at(-1)!.content);
      if (expectRefused) expect(observed).toMatch(/This server's web searches for today are used up \(2 a day, WEB_SEARCH_DAILY\)/);
      else expect(observed).toContain('[1] Node.js 24 released');
    }
    expect(web.requests.filter((r) => r.url.pathname === '/search')).toHaveLength(2);
  }, 60_000);

  it('posts the chart plot drew in the thread at its step and with the answer', async () => {
    w = await startModeration();
    const { fake, model } = w;
    const spec = {
      title: 'Visitors per day',
      data: { values: Array.from({ length: 30 }, (_, day) => ({ day: day + 1, visitors: 100 + ((day * 37) % 50) })) },
      mark: 'line',
      encoding: { x: { field: 'day', type: 'quantitative', title: 'Day' }, y: { field: 'visitors', type: 'quantitative', title: 'Visitors' } },
    };
    model.script({ content: 'Drawing it.', toolCalls: [{ name: 'plot', arguments: { spec } }] }, { content: 'Here is the chart of visitors per day.' });
    const since = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Chart the visitors per day' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 30_000, { since });

    const inThread = fake.messagesIn(answer.channelId).filter((m) => m.authorId === fake.botId);
    const atStep = inThread.find((m) => m.id !== answer.id && m.attachments.length > 0)!;
    expect(atStep.content).toBe('-# 📊 plot: visitors-per-day.png');
    expect(atStep.components).toEqual([]);
    expect(inThread.indexOf(atStep)).toBeLessThan(inThread.indexOf(answer));
    expect(answer.attachments.map((a) => a.filename)).toEqual(['visitors-per-day.png']);
    for (const file of [atStep.attachments[0]!, answer.attachments[0]!]) {
      const image = decodePng(file.data);
      expect(image.width).toBeGreaterThan(200);
      expect(inkShare(image)).toBeGreaterThan(0.01);
    }
    // The model was told the chart was posted and its size, not shown the image.
    const told = String(model.requests[1]!.body.messages.at(-1)!.content);
    expect(told).toMatch(/^The chart was drawn and posted in the conversation as visitors-per-day\.png \(\d+×\d+ px, \d+ KB\)/);
    expect(told.length).toBeLessThan(300);
  }, 60_000);

  it('without Attach Files, says the chart cannot be shown, at its step and under the answer, and the steps go on', async () => {
    w = await startModeration();
    const { fake, model } = w;
    fake.setPermissions({ channelId: fake.defaults.channelId, deny: ['AttachFiles'] });
    const spec = { data: { values: [{ q: 'Q1', n: 3 }, { q: 'Q2', n: 5 }] }, mark: 'bar', encoding: { x: { field: 'q', type: 'nominal' }, y: { field: 'n', type: 'quantitative' } } };
    model.script(
      { toolCalls: [{ name: 'plot', arguments: { spec } }] },
      { content: 'Checking the sum.', toolCalls: [{ name: 'calculate', arguments: { expression: '3 + 5' } }] },
      { content: 'Eight in all.' },
    );
    const since = fake.mark();
    fake.sendSlashCommand({ name: 'ask', options: { question: 'Chart the quarters' } });
    const answer = await fake.waitForMessage(isFinalAnswer, 30_000, { since });
    const inThread = fake.messagesIn(answer.channelId).filter((m) => m.authorId === fake.botId);
    expect(inThread.every((m) => m.attachments.length === 0)).toBe(true);
    const log = inThread.filter((m) => m.id !== answer.id).map((m) => m.content).join('\n');
    expect(log).toContain('-# 📊 plot: chart.png (not shown: I lack the Attach Files permission here)');
    expect(log).toContain('🔧 `calculate(3 + 5)`');
    expect(answer.content).toContain('-# ⚠️ A chart was drawn but cannot be shown: I lack the Attach Files permission here.');
  }, 60_000);
});
