/**
 * The toolbox: every tool the bot has, in one explicit list. `createToolbox` builds them from options
 * (there is no module-level state: the calculator's workers belong to the toolbox and `close` stops them).
 */
import type { ToolDefinition } from '../src/agent/tool.js';
import type { KnowledgeBase } from '../src/knowledge/types.js';
import { createDocumentParser, type DocumentParserOptions } from '../src/knowledge/parse/document-parser.js';
import type { ThreadIndex } from '../src/knowledge/thread-index/index.js';
import type { MemberMemoryStore } from '../src/state/member-memory/index.js';
import { createForgetTool } from './memory/forget.js';
import { createRememberTool } from './memory/remember.js';
import { createSearchThreadsTool } from './search-threads.js';
import { createCalculateTool } from './calculator/calculate.js';
import { CalculatorPool, type CalculatorOptions } from './calculator/pool.js';
import { currentTimeTool } from './current-time.js';
import { createPlotTool } from './plot/plot.js';
import { PlotRenderer, type PlotRendererOptions } from './plot/renderer.js';
import { createReadUrlTool } from './read-url.js';
import type { HostLookup } from '../src/net/safe-http.js';
import { createSearchKnowledgeTool } from './search-knowledge.js';
import type { ProviderSettings } from './web-search/providers.js';
import { createWebSearchTool, type SearchAllowance } from './web-search/web-search.js';
import { createWikipediaTool } from './wikipedia.js';

export type { HostLookup } from '../src/net/safe-http.js';
export type { CalculatorOptions } from './calculator/pool.js';
export type { PlotRendererOptions } from './plot/renderer.js';
export type { SearchAllowance } from './web-search/web-search.js';

/**
 * Names of every tool, in the order they are offered to the model. `search_knowledge` is built only
 * when the toolbox is given a knowledge base (it is off with a Redis KEYV_URL and no KNOWLEDGE_URL),
 * `search_threads` only with the thread index (the same database), `remember` and `forget` only with
 * the member memory store, `web_search` only when a search provider is configured.
 */
export const TOOL_NAMES = ['calculate', 'wikipedia', 'current_time', 'read_url', 'search_knowledge', 'search_threads', 'web_search', 'plot', 'remember', 'forget'] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

export interface ToolboxOptions {
  /** MediaWiki Action API endpoint (config: WIKIPEDIA_API_URL). */
  wikipediaApiUrl: string;
  /** Sent with every outgoing request (config: HTTP_USER_AGENT). */
  userAgent: string;
  readUrl?: {
    /** Tests only: let read_url reach loopback servers. Deliberately not part of the environment config. */
    allowLoopbackForTests?: boolean;
    /** Tests only: resolve host names without DNS. */
    lookup?: HostLookup;
    /** Largest PDF read at a URL (default 10 MB); its pages and time are capped by the document parser. */
    maxPdfBytes?: number;
    /** Pages given instead of the network, by URL (an evaluation suite's `pages`). */
    givenPages?: (url: string) => string | undefined;
  };
  /** The document parser's limits for PDFs read by read_url: the core gives it the knowledge settings (parserOptionsFrom); default the parser's own (1,000 pages, 60 s, 512 MB, the PDF inflate caps). */
  pdf?: DocumentParserOptions;
  /** The limits of read_url's page reader (default: 5 s a page, 256 MB, 16 pages waiting). */
  pages?: DocumentParserOptions;
  /** The calculator's pool: `workers` from config (CALCULATOR_WORKERS); the limits are code options. */
  calculator?: Pick<CalculatorOptions, 'workers' | 'timeoutMs' | 'maxMemoryMb'>;
  /** The server's documents for `search_knowledge`; without it the tool is left out. Its owner closes it. */
  knowledge?: Pick<KnowledgeBase, 'search' | 'hasDocuments' | 'meaning'>;
  /** `web_search`'s provider (config: WEB_SEARCH_PROVIDER and its key or URL); without it the tool is left out. */
  webSearch?: ProviderSettings & { dailyLimit: number; allowance?: SearchAllowance; timeoutMs?: number };
  /** The chart renderer's limits (code options: time and memory per chart). */
  plot?: PlotRendererOptions;
  /** What members asked the bot to remember, for `remember` and `forget`; without it both are left out. */
  memory?: Pick<MemberMemoryStore, 'add' | 'list' | 'forget' | 'limits'>;
  /** The server's past threads, for `search_threads`; without it the tool is left out. Its owner closes it. */
  threads?: Pick<ThreadIndex, 'search'>;
}

/** The tools, plus the resources behind them. */
export interface Toolbox {
  tools: ToolDefinition[];
  /** Stop the calculator's, the chart renderer's and the document readers' worker processes. The tools must not be used afterwards. */
  close(): Promise<void>;
}

/**
 * How long read_url's page reader may take over one page. An honest 1 MB page takes well under a
 * second; a page past the article caps is converted in linear time; what is left to stop is markup
 * built to exhaust Readability within those caps, whose article search is stopped here and the page
 * read again as plain text (the model is told), rather than keep the model and the pages behind waiting.
 */
const PAGE_TIMEOUT_MS = 5_000;

/** Build every tool. The calculator's workers start on first use and then stay warm. */
export function createToolbox(options: ToolboxOptions): Toolbox {
  const calculator = new CalculatorPool(options.calculator);
  const charts = new PlotRenderer(options.plot);
  // Its worker starts with the first PDF read_url meets.
  const pdfParser = createDocumentParser(options.pdf);
  // read_url's pages have a reader of their own: a page waits behind other pages (a few milliseconds
  // each; the worst is stopped at 5 s), never behind a PDF's minute nor a moderator's /kb add.
  const pageReader = createDocumentParser({ timeoutMs: PAGE_TIMEOUT_MS, timeoutSetting: '', maxMemoryMb: 256, maxQueue: 16, ...options.pages });
  // Every name must be handled here (the compiler checks); undefined leaves a tool out.
  const byName: Record<ToolName, ToolDefinition | undefined> = {
    calculate: createCalculateTool(calculator),
    wikipedia: createWikipediaTool({ apiUrl: options.wikipediaApiUrl, userAgent: options.userAgent }),
    current_time: currentTimeTool,
    read_url: createReadUrlTool({
      userAgent: options.userAgent,
      allowLoopbackForTests: options.readUrl?.allowLoopbackForTests,
      lookup: options.readUrl?.lookup,
      pages: pageReader,
      givenPages: options.readUrl?.givenPages,
      pdf: { parser: pdfParser, maxBytes: options.readUrl?.maxPdfBytes },
    }),
    search_knowledge: options.knowledge ? createSearchKnowledgeTool(options.knowledge) : undefined,
    search_threads: options.threads ? createSearchThreadsTool(options.threads) : undefined,
    web_search: options.webSearch ? createWebSearchTool({ ...options.webSearch, userAgent: options.userAgent }) : undefined,
    plot: createPlotTool(charts),
    remember: options.memory ? createRememberTool(options.memory) : undefined,
    forget: options.memory ? createForgetTool(options.memory) : undefined,
  };
  return {
    tools: TOOL_NAMES.flatMap((name) => byName[name] ?? []),
    close: async () => {
      await Promise.all([calculator.close(), charts.close(), pdfParser.close(), pageReader.close()]);
    },
  };
}
