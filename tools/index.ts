/**
 * The toolbox: every tool the bot has, in one explicit list. `createToolbox` builds them from options
 * (there is no module-level state: the calculator's workers belong to the toolbox and `close` stops them).
 */
import type { ToolDefinition } from '../src/agent/tool.js';
import type { KnowledgeBase } from '../src/knowledge/types.js';
import { createCalculateTool } from './calculator/calculate.js';
import { CalculatorPool, type CalculatorOptions } from './calculator/pool.js';
import { currentTimeTool } from './current-time.js';
import { createReadUrlTool } from './read-url.js';
import type { HostLookup } from './safe-http.js';
import { createSearchKnowledgeTool } from './search-knowledge.js';
import { createWikipediaTool } from './wikipedia.js';

export type { HostLookup } from './safe-http.js';
export type { CalculatorOptions } from './calculator/pool.js';

/**
 * Names of every tool, in the order they are offered to the model. `search_knowledge` is built only
 * when the toolbox is given a knowledge base (it is off with a Redis KEYV_URL and no KNOWLEDGE_URL).
 */
export const TOOL_NAMES = ['calculate', 'wikipedia', 'current_time', 'read_url', 'search_knowledge'] as const;

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
  };
  /** The calculator's pool: `workers` from config (CALCULATOR_WORKERS); the limits are code options. */
  calculator?: Pick<CalculatorOptions, 'workers' | 'timeoutMs' | 'maxMemoryMb'>;
  /** The server's documents for `search_knowledge`; without it the tool is left out. Its owner closes it. */
  knowledge?: Pick<KnowledgeBase, 'search' | 'hasDocuments'>;
}

/** The tools, plus the resources behind them. */
export interface Toolbox {
  tools: ToolDefinition[];
  /** Stop the calculator's worker processes. The tools must not be used afterwards. */
  close(): Promise<void>;
}

/** Build every tool. The calculator's workers start on first use and then stay warm. */
export function createToolbox(options: ToolboxOptions): Toolbox {
  const calculator = new CalculatorPool(options.calculator);
  // Every name must be handled here (the compiler checks); undefined leaves a tool out.
  const byName: Record<ToolName, ToolDefinition | undefined> = {
    calculate: createCalculateTool(calculator),
    wikipedia: createWikipediaTool({ apiUrl: options.wikipediaApiUrl, userAgent: options.userAgent }),
    current_time: currentTimeTool,
    read_url: createReadUrlTool({
      userAgent: options.userAgent,
      allowLoopbackForTests: options.readUrl?.allowLoopbackForTests,
      lookup: options.readUrl?.lookup,
    }),
    search_knowledge: options.knowledge ? createSearchKnowledgeTool(options.knowledge) : undefined,
  };
  return {
    tools: TOOL_NAMES.flatMap((name) => byName[name] ?? []),
    close: () => calculator.close(),
  };
}
