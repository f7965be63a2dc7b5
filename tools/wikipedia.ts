/**
 * The `wikipedia` tool: search, then the plain-text introduction of the best page with its title and
 * URL, so the answer can cite it. Talks to the MediaWiki Action API through `ctx.fetch`, with the
 * descriptive User-Agent Wikimedia asks API clients to send. It reaches the internet but only this one
 * configured API, which is why it is on by default unlike `read_url`.
 */
import { z } from 'zod';
import { defineTool, type ToolContext, type ToolDefinition } from '../src/agent/tool.js';
import { ToolError } from '../src/errors.js';
import { capText, htmlToText } from '../src/knowledge/parse/html-text.js';
import { readCapped } from '../src/net/read-capped.js';
import { TEXT_CAPS } from '../src/agent/text-caps.js';

export interface WikipediaOptions {
  /** The Action API endpoint, e.g. https://en.wikipedia.org/w/api.php (WIKIPEDIA_API_URL). */
  apiUrl: string;
  userAgent: string;
  /** Deadline per request (default 10 s). */
  timeoutMs?: number;
  /** Longest extract returned (default 3,000 characters). */
  maxChars?: number;
}

interface SearchHit { title: string; snippet?: string }
interface Page {
  title: string;
  missing?: boolean;
  extract?: string;
  fullurl?: string;
  pageprops?: { disambiguation?: string };
}


const parameters = z.object({
  query: z.string().min(1).max(300).describe('What to look up: a topic, name or short phrase, e.g. "Marie Curie".'),
});

/** The `wikipedia` tool. */
export function createWikipediaTool(options: WikipediaOptions): ToolDefinition<z.infer<typeof parameters>> {
  const maxChars = options.maxChars ?? 3_000;
  const api = async (params: Record<string, string>, ctx: ToolContext) =>
    callApi(options, { ...params, format: 'json', formatversion: '2', utf8: '1' }, ctx);

  return defineTool({
    name: 'wikipedia',
    description:
      'Search Wikipedia and return the introduction of the best-matching article as plain text, with its ' +
      'title and URL to cite. Use it for facts about people, places, things and events. Search with a ' +
      'short topic name, not a question.',
    parameters,
    textParameter: 'query',
    // `search` is the ReAct paper's name for its Wikipedia action; models trained on it use it.
    aliases: ['search', 'search_wikipedia', 'wiki'],
    examples: ['Marie Curie', 'Great Barrier Reef', 'Python (programming language)'],
    async run({ query }, ctx) {
      const search = await api({ action: 'query', list: 'search', srsearch: query, srlimit: '5', srprop: 'snippet' }, ctx);
      const hits = ((search.query as { search?: SearchHit[] } | undefined)?.search ?? []).filter((hit) => hit.title);
      if (hits.length === 0) {
        const suggestion = (search.query as { searchinfo?: { suggestion?: string } } | undefined)?.searchinfo?.suggestion;
        return suggestion
          ? `No Wikipedia article matches "${query}". Did you mean "${suggestion}"? Search for that instead.`
          : `No Wikipedia article matches "${query}". Try fewer or different keywords, or the usual English name of the topic.`;
      }
      const [best, ...others] = hits as [SearchHit, ...SearchHit[]];
      const details = await api(
        { action: 'query', prop: 'extracts|pageprops|info', titles: best.title, redirects: '1', exintro: '1', explaintext: '1', inprop: 'url', ppprop: 'disambiguation' },
        ctx,
      );
      const page = (details.query as { pages?: Page[] } | undefined)?.pages?.[0];
      const title = page && !page.missing ? page.title : best.title;
      const url = page?.fullurl ?? articleUrl(options.apiUrl, title);
      const alsoFound = others.length ? `Other matching articles: ${others.map((hit) => hit.title).join('; ')}.` : '';

      if (page?.pageprops?.disambiguation !== undefined) {
        const intro = page.extract ? capText(page.extract.trim(), 800).text : '';
        return [
          `"${title}" is a disambiguation page: the name has several meanings.${intro ? ` ${intro}` : ''}`,
          alsoFound,
          `Search again with a more specific title${others[0] ? `, e.g. "${others[0].title}"` : ', e.g. adding what kind of thing you mean'}.`,
        ].filter(Boolean).join('\n');
      }

      const text = page?.extract?.trim() || htmlToText(best.snippet ?? '').text;
      const { text: extract, cut } = capText(text || '(This article has no introduction text.)', maxChars);
      const output = [`${title} (${url})`, '', extract, cut ? '[introduction shortened]' : '', alsoFound]
        .filter((line, i) => i === 1 || line)
        .join('\n');
      return { output, sources: [{ title: `${title} - Wikipedia`, url }] };
    },
  });
}

/** One Action API call; every failure becomes a ToolError the model can read. */
async function callApi(options: WikipediaOptions, params: Record<string, string>, ctx: ToolContext): Promise<Record<string, unknown>> {
  const url = new URL(options.apiUrl);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)]);
  let body: string;
  try {
    const response = await ctx.fetch(url, {
      headers: { 'User-Agent': options.userAgent, 'Api-User-Agent': options.userAgent, Accept: 'application/json' },
      signal,
      redirect: 'follow',
    });
    if (!response.ok) {
      throw new ToolError(`Wikipedia answered HTTP ${response.status}${response.status >= 500 || response.status === 429 ? '; it may be busy, try again in a moment' : ''}.`);
    }
    const read = await readCapped(response.body, TEXT_CAPS.webResponseBytes);
    if (read.truncated) throw new ToolError('Wikipedia sent an unexpectedly large answer; try a narrower search.');
    body = read.body.toString('utf8');
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (signal.aborted) {
      const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError';
      throw new ToolError(timedOut ? 'Wikipedia did not answer in time; try again in a moment.' : 'The Wikipedia search was cancelled.', { cause: error });
    }
    throw new ToolError(`Could not reach Wikipedia (${(error as Error).message}).`, { cause: error });
  }
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body) as Record<string, unknown>;
  } catch (error) {
    throw new ToolError('Wikipedia sent an answer that is not JSON; check WIKIPEDIA_API_URL points at an api.php endpoint.', { cause: error });
  }
  const apiError = json.error as { code?: string; info?: string } | undefined;
  if (apiError) throw new ToolError(`Wikipedia refused the request: ${apiError.info ?? apiError.code ?? 'unknown error'}.`);
  return json;
}

/** The article's URL when the API did not give one: /wiki/Title on the API's host. */
function articleUrl(apiUrl: string, title: string): string {
  return new URL(`/wiki/${encodeURIComponent(title.replace(/ /g, '_'))}`, apiUrl).href;
}
