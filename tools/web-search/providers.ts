/**
 * The three web search providers `web_search` can use, each as what its request looks like, how its
 * JSON answer reads as results, and what an error status means in words an operator can act on:
 * - SearXNG (self-hosted): GET {SEARXNG_URL}/search?q=…&format=json; the JSON format must be enabled
 *   in the instance's settings.yml (`search.formats`), else it answers 403.
 * - Brave Search API: GET /res/v1/web/search?q=…&count=N with the X-Subscription-Token header.
 * - Tavily: POST /search with a JSON body and `Authorization: Bearer tvly-…`.
 */
import { TEXT_CAPS } from '../../src/agent/text-caps.js';

/** One search result, as every provider's answer is read. */
export interface SearchResult {
  title: string;
  url: string;
  snippet: string;
  /** When the page was published, where the provider says (an ISO date or words like "2 days ago"). */
  date?: string;
}

export type ProviderName = 'searxng' | 'brave' | 'tavily';

/** Which provider and how to reach it (config: WEB_SEARCH_PROVIDER, SEARXNG_URL, BRAVE_API_KEY, TAVILY_API_KEY). */
export interface ProviderSettings {
  provider: ProviderName;
  /** SearXNG: the instance's base URL. Brave and Tavily: their API's base URL (a default; tests point it at a local server). */
  url?: string;
  apiKey?: string;
}

export interface Provider {
  /** How people know it: "SearXNG", "Brave Search", "Tavily". */
  label: string;
  request(query: string, count: number): { url: URL; init: RequestInit };
  /** Results from the parsed JSON body, in the provider's order. */
  results(json: unknown): SearchResult[];
  /** What an HTTP error status means and what to fix; `detail` is the provider's own message when it gave one. */
  failure(status: number, detail: string | undefined): string;
}

export const DEFAULT_BRAVE_URL = 'https://api.search.brave.com';
export const DEFAULT_TAVILY_URL = 'https://api.tavily.com';

type Json = Record<string, unknown>;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.filter((v): v is Json => typeof v === 'object' && v !== null) : []);
const withDetail = (message: string, detail: string | undefined) => (detail ? `${message} (it said: ${detail.slice(0, TEXT_CAPS.echo)})` : message);

/** The provider the settings name. */
export function providerFor(settings: ProviderSettings): Provider {
  switch (settings.provider) {
    case 'searxng':
      return searxng(settings.url ?? '');
    case 'brave':
      return brave(settings.url ?? DEFAULT_BRAVE_URL, settings.apiKey ?? '');
    case 'tavily':
      return tavily(settings.url ?? DEFAULT_TAVILY_URL, settings.apiKey ?? '');
  }
}

function searxng(base: string): Provider {
  return {
    label: 'SearXNG',
    request(query) {
      const url = new URL('search', base.endsWith('/') ? base : `${base}/`);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      return { url, init: { method: 'GET', headers: { Accept: 'application/json' } } };
    },
    results: (json) =>
      list((json as Json).results).map((r) => ({ title: text(r.title), url: text(r.url), snippet: text(r.content), date: text(r.publishedDate) || undefined })),
    failure(status, detail) {
      if (status === 403) {
        return 'The SearXNG instance refused JSON output (HTTP 403). Its operator must enable it: add "json" to search.formats in the instance\'s settings.yml and restart it.';
      }
      if (status === 429) return withDetail('The SearXNG instance is rate limiting this bot (HTTP 429): allow the bot\'s address in its limiter settings, or try again later', detail);
      return withDetail(`The SearXNG instance answered HTTP ${status}; check SEARXNG_URL and that the instance is running`, detail);
    },
  };
}

function brave(base: string, apiKey: string): Provider {
  return {
    label: 'Brave Search',
    request(query, count) {
      const url = new URL('/res/v1/web/search', base);
      url.searchParams.set('q', query);
      url.searchParams.set('count', String(count));
      return { url, init: { method: 'GET', headers: { Accept: 'application/json', 'X-Subscription-Token': apiKey } } };
    },
    results: (json) =>
      list(((json as Json).web as Json | undefined)?.results).map((r) => ({
        title: text(r.title),
        url: text(r.url),
        snippet: text(r.description),
        date: text(r.page_age) || text(r.age) || undefined,
      })),
    failure(status, detail) {
      if (status === 401 || status === 403 || status === 422 && /token|subscription/i.test(detail ?? '')) {
        return withDetail(`Brave Search refused the API key (HTTP ${status}): check BRAVE_API_KEY (the subscription token from the Brave Search API dashboard)`, detail);
      }
      if (status === 402 || status === 429) {
        return withDetail(`Brave Search says the plan's rate or monthly quota is used up (HTTP ${status}): wait, or raise the plan in the Brave Search API dashboard`, detail);
      }
      return withDetail(`Brave Search answered HTTP ${status}`, detail);
    },
  };
}

function tavily(base: string, apiKey: string): Provider {
  return {
    label: 'Tavily',
    request(query, count) {
      const url = new URL('/search', base);
      const body = JSON.stringify({ query, max_results: count, search_depth: 'basic', include_answer: false });
      return { url, init: { method: 'POST', headers: { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${apiKey}` }, body } };
    },
    results: (json) =>
      list((json as Json).results).map((r) => ({ title: text(r.title), url: text(r.url), snippet: text(r.content), date: text(r.published_date) || undefined })),
    failure(status, detail) {
      if (status === 401 || status === 403) return withDetail(`Tavily refused the API key (HTTP ${status}): check TAVILY_API_KEY (it starts with tvly-)`, detail);
      if (status === 429) return withDetail('Tavily is rate limiting this key (HTTP 429): wait a minute, or raise the plan', detail);
      if (status === 432 || status === 433) return withDetail(`Tavily says the key's plan or spending limit is used up (HTTP ${status}): raise it in the Tavily dashboard`, detail);
      return withDetail(`Tavily answered HTTP ${status}`, detail);
    },
  };
}

/** The provider's own error message from an error body, when it has a known shape (Brave, Tavily, FastAPI-style). */
export function errorDetail(body: string): string | undefined {
  try {
    const json = JSON.parse(body) as Json;
    const error = json.error as Json | string | undefined;
    const detail = json.detail as Json | string | undefined;
    const candidates = [
      typeof error === 'object' ? text(error?.detail) || text(error?.message) || text(error?.code) : text(error),
      typeof detail === 'object' ? text(detail?.error) || text(detail?.message) : text(detail),
      text(json.message),
    ];
    return candidates.find(Boolean);
  } catch {
    return undefined;
  }
}
