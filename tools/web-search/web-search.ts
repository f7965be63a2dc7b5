/**
 * The `web_search` tool: numbered results (title, URL, snippet, date where given) from the provider
 * the operator chose, so the answer can cite them as [1], [2]; the results also go back as sources, so
 * they show as links under the answer. It reaches the open web through a paid or self-hosted service,
 * so it is off by default (`network: true`), and each server may search only WEB_SEARCH_DAILY times a
 * UTC day. Every failure becomes an observation that says what to fix.
 */
import { z } from 'zod';
import { ownNumbers } from '../../src/agent/citations.js';
import { safeHttpUrl } from '../../src/agent/clean-text.js';
import { defineTool, type ToolContext, type ToolDefinition } from '../../src/agent/tool.js';
import { ToolError } from '../../src/errors.js';
import { capText, htmlToText, tidyWhitespace } from '../../src/knowledge/parse/html-text.js';
import { readCapped } from '../../src/net/read-capped.js';
import { errorDetail, providerFor, type Provider, type ProviderSettings, type SearchResult } from './providers.js';
import { TEXT_CAPS } from '../../src/agent/text-caps.js';

/** Taking one of today's searches: granted (with a way to give it back), or refused until `resetsAt`. */
export type SearchAllowance = (guildId: string | null, max: number) => Promise<
  { ok: true; giveBack(): Promise<void> } | { ok: false; used: number; max: number; resetsAt: Date }
>;

export interface WebSearchOptions extends ProviderSettings {
  userAgent: string;
  /** Searches per server per UTC day (WEB_SEARCH_DAILY); 0: no cap. */
  dailyLimit: number;
  /** Where the daily count lives (the usage store); without it there is no cap (the terminal). */
  allowance?: SearchAllowance;
  /** Results per search (default 5). */
  count?: number;
  /** Deadline per request (default 10 s). */
  timeoutMs?: number;
}

/** Every field of a result comes from the web: each has a cap (a title of 10,000 characters is a page's trick, not a title). */
const { webResponseBytes: MAX_RESPONSE_BYTES, webSnippet: SNIPPET_CHARS, webTitle: TITLE_CHARS, webDate: DATE_CHARS } = TEXT_CAPS;

const parameters = z.object({
  query: z.string().min(1).max(400).describe('What to search the web for: keywords or a short question, e.g. "Rust 1.80 release date".'),
});

/** The `web_search` tool over the configured provider. */
export function createWebSearchTool(options: WebSearchOptions): ToolDefinition<z.infer<typeof parameters>> {
  const provider = providerFor(options);
  const count = options.count ?? 5;
  return defineTool({
    name: 'web_search',
    description:
      'Search the web for recent or specific information (news, releases, prices, events this week). Returns ' +
      'numbered results with title, URL, snippet and date; cite them in the answer by their numbers, e.g. [1]. Open a result ' +
      'with read_url when its snippet is not enough.',
    parameters,
    textParameter: 'query',
    aliases: ['websearch', 'search_web', 'internet_search', 'google'],
    examples: ['Node.js 24 release date', 'weather warnings Berlin today'],
    network: true,
    async run({ query }, ctx) {
      const take = options.allowance && options.dailyLimit > 0 ? await options.allowance(ctx.collection ?? null, options.dailyLimit) : undefined;
      if (take && !take.ok) {
        throw new ToolError(
          `This server's web searches for today are used up (${take.max} a day, WEB_SEARCH_DAILY); they start again at ${take.resetsAt.toISOString().slice(0, 16).replace('T', ' ')} UTC. Answer from what you already found or other tools, and say that web search is unavailable until then.`,
        );
      }
      try {
        const results = await search(provider, query.trim(), count, options, ctx);
        if (results.length === 0) return `${provider.label} found nothing for "${query}". Try other or fewer keywords.`;
        const sources = results.map((r) => ({ title: r.title || r.url, url: r.url }));
        // Numbered as the run numbers its sources, so a second search goes on where the first ended.
        const cite = ctx.cite ?? ownNumbers();
        return { output: formatResults(provider.label, query, results, sources.map(cite)), sources };
      } catch (error) {
        // A search that did not happen is not counted against the day.
        if (take?.ok) await take.giveBack().catch(() => undefined);
        throw error;
      }
    },
  });
}

/**
 * One request to the provider; its results cleaned (HTML in titles and snippets becomes text), capped,
 * and with URLs that parse as http(s) only, written as parsed (so a URL cannot carry Markdown along).
 */
async function search(provider: Provider, query: string, count: number, options: WebSearchOptions, ctx: ToolContext): Promise<SearchResult[]> {
  const { url, init } = provider.request(query, count);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
  let status: number;
  let body: string;
  try {
    const response = await ctx.fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'User-Agent': options.userAgent }, signal, redirect: 'follow' });
    status = response.status;
    const read = await readCapped(response.body, MAX_RESPONSE_BYTES);
    if (read.truncated) throw new ToolError(`${provider.label} sent an unexpectedly large answer; try a narrower search.`);
    body = read.body.toString('utf8');
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (signal.aborted) {
      const timedOut = (signal.reason as Error | undefined)?.name === 'TimeoutError';
      throw new ToolError(timedOut ? `${provider.label} did not answer within ${timeoutMs / 1000} s; try again in a moment.` : 'The web search was cancelled.', { cause: error });
    }
    throw new ToolError(`Could not reach ${provider.label} at ${url.origin} (${(error as Error).message}); check that it is running and the address is right.`, { cause: error });
  }
  if (status < 200 || status >= 300) throw new ToolError(`${provider.failure(status, errorDetail(body))}. Web search is unavailable until that is fixed: answer without it.`);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new ToolError(`${provider.label} answered with something that is not JSON (an HTML page?); check that its address points at the instance or API itself and that JSON output is enabled.`, { cause: error });
  }
  const results: SearchResult[] = [];
  for (const r of provider.results(json)) {
    const url = safeHttpUrl(r.url);
    if (!url) continue;
    results.push({
      url,
      title: capText(tidyWhitespace(htmlToText(r.title.slice(0, TITLE_CHARS * 20)).text), TITLE_CHARS).text,
      snippet: capText(tidyWhitespace(htmlToText(r.snippet.slice(0, SNIPPET_CHARS * 20)).text), SNIPPET_CHARS).text,
      ...(r.date ? { date: capText(tidyWhitespace(r.date), DATE_CHARS).text } : {}),
    });
    if (results.length >= count) break;
  }
  return results;
}

/** Numbered results the model can cite (`numbers[i]` is result i's; by default 1, 2, …). */
export function formatResults(label: string, query: string, results: SearchResult[], numbers: readonly number[] = results.map((_, i) => i + 1)): string {
  const lines = [`${label} results for "${query}" (cite them as [n]; open one with read_url for its full text):`];
  results.forEach((r, i) => {
    lines.push('', `[${numbers[i]}] ${r.title || '(no title)'}`, `URL: ${r.url}`);
    if (r.date) lines.push(`Date: ${r.date}`);
    if (r.snippet) lines.push(r.snippet);
  });
  return lines.join('\n');
}
