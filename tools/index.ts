/**
 * The toolbox: every tool the bot has, in one explicit list. `createToolbox` builds them from options
 * (there is no module-level state: the calculator's workers belong to the toolbox and `close` stops them).
 */
import type { ToolDefinition } from '../src/agent/tool.js';
import { createCalculateTool } from './calculator/calculate.js';
import { CalculatorPool, type CalculatorOptions } from './calculator/pool.js';
import { currentTimeTool } from './current-time.js';
import { createReadUrlTool } from './read-url.js';
import type { HostLookup } from './safe-http.js';
import { createWikipediaTool } from './wikipedia.js';

export type { HostLookup } from './safe-http.js';
export type { CalculatorOptions } from './calculator/pool.js';

/** Names of every tool, in the order they are offered to the model. */
export const TOOL_NAMES = ['calculate', 'wikipedia', 'current_time', 'read_url'] as const;

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
  const byName: Record<ToolName, ToolDefinition> = {
    calculate: createCalculateTool(calculator),
    wikipedia: createWikipediaTool({ apiUrl: options.wikipediaApiUrl, userAgent: options.userAgent }),
    current_time: currentTimeTool,
    read_url: createReadUrlTool({
      userAgent: options.userAgent,
      allowLoopbackForTests: options.readUrl?.allowLoopbackForTests,
      lookup: options.readUrl?.lookup,
    }),
  };
  return {
    tools: TOOL_NAMES.map((name) => byName[name]),
    close: () => calculator.close(),
  };
}
