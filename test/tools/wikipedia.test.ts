/**
 * The `wikipedia` tool against a local MediaWiki stand-in answering with recorded-style JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/agent/tool.js';
import { ToolError } from '../../src/errors.js';
import { createWikipediaTool } from '../../tools/wikipedia.js';
import * as recorded from './fixtures/mediawiki.js';
import { json, startLocalServer, type LocalServer } from './helpers/local-server.js';
import { outputOf, toolContext } from './helpers/tool-context.js';

const USER_AGENT = 'threadwise-tests/1.0 (https://example.org/threadwise; tests@example.org)';

/** Answers like api.php: a search for `srsearch`, page details for `titles`. */
const searches: Record<string, unknown> = {
  'Marie Curie': recorded.searchMarieCurie,
  Mercury: recorded.searchMercury,
  'Marie Cuire': recorded.searchNothing,
  zzqxv: recorded.searchNothingNoSuggestion,
  'Ada Lovelace': recorded.searchOnlySnippet,
};
const pages: Record<string, unknown> = {
  'Marie Curie': recorded.extractMarieCurie,
  Mercury: recorded.extractMercury,
  'Ada Lovelace': recorded.extractEmpty,
};

describe('wikipedia', () => {
  let server: LocalServer;
  const tool = (options: { timeoutMs?: number; path?: string } = {}) =>
    createWikipediaTool({ apiUrl: `${server.origin}${options.path ?? '/w/api.php'}`, userAgent: USER_AGENT, timeoutMs: options.timeoutMs });

  beforeAll(async () => {
    server = await startLocalServer({
      '/w/api.php': (req, res, url) => {
        const params = url.searchParams;
        const body = params.get('list') === 'search' ? searches[params.get('srsearch') ?? ''] : pages[params.get('titles') ?? ''];
        json(body ?? recorded.apiError)(req, res, url);
      },
      '/broken/api.php': json({ error: 'internal' }, 500),
      '/error/api.php': json(recorded.apiError),
      '/html/api.php': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>Not the API</html>'),
      '/slow/api.php': () => {
        /* never answers */
      },
    });
  });
  afterAll(() => server.close());

  it('returns the intro of the best page with its title and URL to cite', async () => {
    const result = (await tool().run({ query: 'Marie Curie' }, toolContext())) as ToolOutput;
    expect(result.output).toMatch(/^Marie Curie \(https:\/\/en\.wikipedia\.org\/wiki\/Marie_Curie\)\n\nMaria Salomea/);
    expect(result.output).toContain('first woman to win a Nobel Prize');
    expect(result.output).toContain('Other matching articles: Pierre Curie; Curie Institute (Paris).');
    expect(result.sources).toEqual([{ title: 'Marie Curie - Wikipedia', url: 'https://en.wikipedia.org/wiki/Marie_Curie' }]);
  });

  it('asks the API for a plain-text intro and identifies itself with the configured User-Agent', async () => {
    await tool().run({ query: 'Marie Curie' }, toolContext());
    const extract = server.requests.filter((r) => r.url.searchParams.get('prop')?.includes('extracts')).at(-1)!;
    expect(extract.url.searchParams.get('explaintext')).toBe('1');
    expect(extract.url.searchParams.get('exintro')).toBe('1');
    expect(extract.headers['user-agent']).toBe(USER_AGENT);
  });

  it('says so when nothing matches, passing on the suggestion Wikipedia makes', async () => {
    const output = outputOf(await tool().run({ query: 'Marie Cuire' }, toolContext()));
    expect(output).toBe('No Wikipedia article matches "Marie Cuire". Did you mean "marie curie"? Search for that instead.');
  });

  it('says so when nothing matches and there is no suggestion, with advice', async () => {
    const output = outputOf(await tool().run({ query: 'zzqxv' }, toolContext()));
    expect(output).toMatch(/No Wikipedia article matches "zzqxv"\. Try fewer or different keywords/);
  });

  it('explains a disambiguation page and names the specific articles to search for instead', async () => {
    const result = await tool().run({ query: 'Mercury' }, toolContext());
    const output = outputOf(result);
    expect(output).toMatch(/^"Mercury" is a disambiguation page/);
    expect(output).toContain('Other matching articles: Mercury (planet); Mercury (element).');
    expect(output).toContain('e.g. "Mercury (planet)"');
    expect(typeof result).toBe('string'); // nothing to cite
  });

  it('strips markup and decodes entities when it falls back to the search snippet', async () => {
    const output = outputOf(await tool().run({ query: 'Ada Lovelace' }, toolContext()));
    expect(output).toContain('Augusta Ada King, Countess of Lovelace & mathematician – wrote "notes"');
    expect(output).not.toMatch(/<span|<b>|&amp;|&quot;/);
  });

  it('turns a server error into an observation that says to try again', async () => {
    await expect(tool({ path: '/broken/api.php' }).run({ query: 'x' }, toolContext())).rejects.toThrow(
      new ToolError('Wikipedia answered HTTP 500; it may be busy, try again in a moment.'),
    );
  });

  it('passes on an API error message', async () => {
    await expect(tool({ path: '/error/api.php' }).run({ query: 'x' }, toolContext())).rejects.toThrow(/Wikipedia refused the request: Unrecognized value/);
  });

  it('says when the configured URL does not answer with JSON', async () => {
    await expect(tool({ path: '/html/api.php' }).run({ query: 'x' }, toolContext())).rejects.toThrow(/not JSON; check WIKIPEDIA_API_URL/);
  });

  it('gives up with a clear message when the server does not answer in time', async () => {
    const started = performance.now();
    await expect(tool({ path: '/slow/api.php', timeoutMs: 200 }).run({ query: 'x' }, toolContext())).rejects.toThrow(
      /Wikipedia did not answer in time/,
    );
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('stops at once when the run is cancelled', async () => {
    const controller = new AbortController();
    const pending = tool({ path: '/slow/api.php' }).run({ query: 'x' }, toolContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error('cancelled by user')), 50);
    await expect(pending).rejects.toThrow(/cancelled/);
  });

  it('caps a long introduction at a sentence end', async () => {
    const long = { query: { pages: [{ title: 'Long', fullurl: 'https://en.wikipedia.org/wiki/Long', extract: 'A sentence here. '.repeat(400) }] } };
    server.route('/long/api.php', (req, res, url) =>
      json(url.searchParams.get('list') ? { query: { search: [{ title: 'Long' }] } } : long)(req, res, url),
    );
    const output = outputOf(await tool({ path: '/long/api.php' }).run({ query: 'Long' }, toolContext()));
    expect(output.length).toBeLessThan(3_200);
    expect(output).toMatch(/here\.\n\[introduction shortened\]$/);
  });
});
