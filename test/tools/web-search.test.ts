/**
 * `web_search` against a local server answering as SearXNG, Brave and Tavily do (recorded-style JSON),
 * and failing as they fail: bad keys, quotas, an instance without JSON output, silence, HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Citations } from '../../src/agent/citations.js';
import type { ToolOutput } from '../../src/agent/tool.js';
import { createWebSearchTool, type SearchAllowance, type WebSearchOptions } from '../../tools/web-search/web-search.js';
import * as recorded from './fixtures/web-search.js';
import { json, startLocalServer, type LocalServer } from './helpers/local-server.js';
import { toolContext } from './helpers/tool-context.js';

const USER_AGENT = 'threadwise-tests/1.0 (tests@example.org)';

describe('web_search', () => {
  let server: LocalServer;
  const bodies: string[] = [];
  const tool = (options: Partial<WebSearchOptions> & Pick<WebSearchOptions, 'provider'>) =>
    createWebSearchTool({ userAgent: USER_AGENT, dailyLimit: 0, ...options });
  const search = (options: Partial<WebSearchOptions> & Pick<WebSearchOptions, 'provider'>, query = 'node.js 24 release') =>
    tool(options).run({ query }, toolContext()) as Promise<ToolOutput>;

  beforeAll(async () => {
    server = await startLocalServer({
      '/searx/search': json(recorded.searxngNode24),
      '/empty/search': json(recorded.searxngNothing),
      '/nojson/search': (_req, res) => res.writeHead(403, { 'Content-Type': 'text/html' }).end(recorded.searxngForbiddenHtml),
      '/html/search': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html><body>SearXNG</body></html>'),
      '/silent/search': () => undefined,
      '/res/v1/web/search': (req, res, url) => {
        const token = req.headers['x-subscription-token'];
        if (token === 'good') return json(recorded.braveNode24)(req, res, url);
        if (token === 'spent') return json(recorded.braveRateLimited, 429)(req, res, url);
        return json(recorded.braveInvalidToken, 422)(req, res, url);
      },
      '/search': (req, res, url) => {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          bodies.push(body);
          const auth = req.headers.authorization;
          if (auth === 'Bearer tvly-good') return json(recorded.tavilyNode24)(req, res, url);
          if (auth === 'Bearer tvly-spent') return json(recorded.tavilyPlanLimit, 432)(req, res, url);
          return json(recorded.tavilyUnauthorized, 401)(req, res, url);
        });
      },
    });
  });
  afterAll(() => server.close());

  it('numbers SearXNG results with title, URL, date and a cleaned snippet, and returns them as sources', async () => {
    const result = await search({ provider: 'searxng', url: `${server.origin}/searx` });
    expect(result.output).toContain('[1] Node.js — Node.js 24.0.0 (Current)\nURL: https://nodejs.org/en/blog/release/v24.0.0\nDate: 2025-05-06T00:00:00\nNode.js 24 ships V8 13.6, npm 11 & URLPattern');
    expect(result.output).toContain('[2] Release 2025-05-06, Version 24.0.0 (Current) · nodejs/node\nURL: https://github.com/nodejs/node/releases/tag/v24.0.0\nNotable');
    expect(result.output).toContain('[3] Node.js - Wikipedia');
    expect(result.sources).toEqual([
      { title: 'Node.js — Node.js 24.0.0 (Current)', url: 'https://nodejs.org/en/blog/release/v24.0.0' },
      { title: 'Release 2025-05-06, Version 24.0.0 (Current) · nodejs/node', url: 'https://github.com/nodejs/node/releases/tag/v24.0.0' },
      { title: 'Node.js - Wikipedia', url: 'https://en.wikipedia.org/wiki/Node.js' },
    ]);
    const sent = server.requests.at(-1)!;
    expect(sent.url.searchParams.get('format')).toBe('json');
    expect(sent.url.searchParams.get('q')).toBe('node.js 24 release');
    expect(sent.headers['user-agent']).toBe(USER_AGENT);
  });

  it('numbers its results as the run does: a second search goes on from the run\'s last number, a result seen before keeps its own', async () => {
    const citations = new Citations();
    const ctx = toolContext({ cite: (source) => citations.cite(source) });
    // Something else in the run cited a source first: this search starts at [2].
    citations.cite({ title: 'Paris - Wikipedia', url: 'https://en.wikipedia.org/wiki/Paris' });
    const first = (await tool({ provider: 'searxng', url: `${server.origin}/searx` }).run({ query: 'node 24' }, ctx)) as ToolOutput;
    expect(first.output).toContain('[2] Node.js — Node.js 24.0.0 (Current)');
    expect(first.output).toContain('[4] Node.js - Wikipedia');
    // Brave finds one of the same pages: it keeps its number, the new ones go on from 5.
    const second = (await tool({ provider: 'brave', apiKey: 'good', url: server.origin }).run({ query: 'node 24' }, ctx)) as ToolOutput;
    const numbers = [...second.output.matchAll(/^\[(\d+)\] .*\nURL: (.*)$/gm)].map((m) => [Number(m[1]), m[2]] as const);
    for (const [n, url] of numbers) expect(n).toBe(citations.list().findIndex((s) => s.url === url) + 1);
    expect(numbers.find(([, url]) => url === 'https://nodejs.org/en/blog/release/v24.0.0')?.[0]).toBe(2);
    expect(numbers.some(([n]) => n >= 5)).toBe(true);
  });

  it('reads Brave results (description highlights removed, page age as the date) and sends the key and count', async () => {
    const result = await search({ provider: 'brave', url: server.origin, apiKey: 'good', count: 3 });
    expect(result.output).toContain('[1] Node.js — Node.js 24.0.0 (Current)\nURL: https://nodejs.org/en/blog/release/v24.0.0\nDate: 2025-05-06T12:00:00\nNode.js 24 ships V8 13.6 and npm 11');
    expect(result.output).toContain('[3] Node.js — Previous Releases\nURL: https://nodejs.org/en/about/previous-releases\nMajor Node.js versions');
    expect(result.output).not.toContain('<strong>');
    expect(result.sources).toHaveLength(3);
    const sent = server.requests.at(-1)!;
    expect(sent.url.searchParams.get('count')).toBe('3');
    expect(sent.headers['x-subscription-token']).toBe('good');
  });

  it('reads Tavily results from a POST with the bearer key and the query in the body', async () => {
    const result = await search({ provider: 'tavily', url: server.origin, apiKey: 'tvly-good', count: 4 });
    expect(result.output).toContain('[2] Node.js 24 is here: what you need to know\nURL: https://blog.example.dev/node-24\nDate: Thu, 08 May 2025 09:30:00 GMT');
    expect(result.sources!.map((s) => s.url)).toEqual(['https://nodejs.org/en/blog/release/v24.0.0', 'https://blog.example.dev/node-24', 'https://en.wikipedia.org/wiki/Node.js']);
    expect(JSON.parse(bodies.at(-1)!)).toMatchObject({ query: 'node.js 24 release', max_results: 4 });
  });

  it('says when nothing was found', async () => {
    expect(await tool({ provider: 'searxng', url: `${server.origin}/empty` }).run({ query: 'zzqxv qqq' }, toolContext())).toMatch(/SearXNG found nothing for "zzqxv qqq"/);
  });

  it.each([
    ['a SearXNG instance without JSON output', { provider: 'searxng', url: '/nojson' }, /refused JSON output \(HTTP 403\).*add "json" to search\.formats in the instance's settings\.yml/],
    ['a bad Brave key', { provider: 'brave', apiKey: 'wrong' }, /Brave Search refused the API key \(HTTP 422\): check BRAVE_API_KEY.*subscription token is invalid/],
    ['a spent Brave plan', { provider: 'brave', apiKey: 'spent' }, /quota is used up \(HTTP 429\).*rate limit exceeded/],
    ['a bad Tavily key', { provider: 'tavily', apiKey: 'tvly-wrong' }, /Tavily refused the API key \(HTTP 401\): check TAVILY_API_KEY.*missing or invalid API key/],
    ['a spent Tavily plan', { provider: 'tavily', apiKey: 'tvly-spent' }, /plan or spending limit is used up \(HTTP 432\)/],
    ['an HTML page instead of JSON', { provider: 'searxng', url: '/html' }, /not JSON/],
  ] as const)('turns %s into an error that says what to fix', async (_name, settings, message) => {
    const options = { ...settings, url: `${server.origin}${'url' in settings ? settings.url : ''}` } as Parameters<typeof tool>[0];
    const error = await tool(options).run({ query: 'q' }, toolContext()).catch((e: Error) => e);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/answer without it|not JSON/);
  });

  it('gives up on a provider that does not answer in time', async () => {
    const error = await tool({ provider: 'searxng', url: `${server.origin}/silent`, timeoutMs: 200 }).run({ query: 'q' }, toolContext()).catch((e: Error) => e);
    expect((error as Error).message).toBe('SearXNG did not answer within 0.2 s; try again in a moment.');
  });

  it('says where it could not connect', async () => {
    const error = await tool({ provider: 'searxng', url: 'http://127.0.0.1:9/' }).run({ query: 'q' }, toolContext()).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/Could not reach SearXNG at http:\/\/127\.0\.0\.1:9/);
  });

  it('takes one of the day\'s searches per call, refuses when they are used up, and gives back the use of a failed search', async () => {
    let used = 0;
    const given: Array<string | null> = [];
    const allowance: SearchAllowance = async (guildId, max) => {
      given.push(guildId);
      if (used >= max) return { ok: false, used, max, resetsAt: new Date('2025-03-05T00:00:00Z') };
      used += 1;
      return { ok: true, giveBack: async () => void (used -= 1) };
    };
    const capped = (url: string) => tool({ provider: 'searxng', url, dailyLimit: 2, allowance });
    const ctx = toolContext({ collection: 'G1' });
    await capped(`${server.origin}/nojson`).run({ query: 'q' }, ctx).catch(() => undefined);
    expect(used).toBe(0);
    await capped(`${server.origin}/searx`).run({ query: 'q' }, ctx);
    await capped(`${server.origin}/searx`).run({ query: 'q' }, ctx);
    const before = server.requests.length;
    const refused = await capped(`${server.origin}/searx`).run({ query: 'q' }, ctx).catch((e: Error) => e);
    expect((refused as Error).message).toMatch(/web searches for today are used up \(2 a day, WEB_SEARCH_DAILY\); they start again at 2025-03-05 00:00 UTC/);
    expect(server.requests.length).toBe(before);
    expect(given.every((g) => g === 'G1')).toBe(true);
  });
});
