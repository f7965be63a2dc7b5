/**
 * What every entry point shares, built from the configuration: the model client, the tools and the
 * engine over them. `npm start` (through `app.ts`) and `npm run ask` both start here, so the terminal
 * runs exactly the engine and tools the bot runs.
 */
import type { Config } from './config.js';
import { createEngine, type Engine, type RunDefaults } from './agent/engine.js';
import type { ToolDefinition } from './agent/tool.js';
import type { ChatModel } from './agent/types.js';
import { OpenAIChatModel } from './llm/openai-model.js';
import { contextFit, tokenCounters, type TokenCounter } from './state/index.js';
import { createToolbox, type Toolbox, type ToolboxOptions } from '../tools/index.js';

/** The engine settings the configuration gives: the one place config becomes engine defaults. */
export function engineDefaults(config: Pick<Config, 'agent'>): Partial<RunDefaults> {
  const { protocol, maxSteps, toolTimeoutMs, runTimeoutMs, toolOutputMaxChars } = config.agent;
  return { protocol, maxSteps, toolTimeoutMs, runTimeoutMs, maxToolOutputChars: toolOutputMaxChars };
}

/** Replacements for tests: a model client, tool options, the fetch tools use, and the tool list itself. */
export interface CoreOverrides {
  model?: ChatModel;
  toolbox?: Partial<ToolboxOptions>;
  fetch?: typeof fetch;
  /** Change the tool list before the engine indexes it (tests watch or hold a tool's calls). */
  tools?: (tools: readonly ToolDefinition[]) => ToolDefinition[];
  /** Wrap the model client before the engine gets it (the composition root measures requests). */
  wrapModel?: (model: ChatModel) => ChatModel;
}

export interface Core {
  engine: Engine;
  toolbox: Toolbox;
  /** Counts tokens for the configured model (thread histories, the context fit), its cache shared. */
  tokenCounter: TokenCounter;
  /** The model's context window, when known: MODEL_CONTEXT_TOKENS, the server's report, or the built-in table. */
  contextTokens: number | undefined;
  /** Stop what the tools hold (the calculator's workers). */
  close(): Promise<void>;
}

export async function createCore(config: Pick<Config, 'agent' | 'model' | 'tools'>, overrides: CoreOverrides = {}): Promise<Core> {
  const toolbox = createToolbox({
    wikipediaApiUrl: config.tools.wikipediaApiUrl,
    userAgent: config.tools.userAgent,
    calculator: { workers: config.tools.calculatorWorkers },
    ...overrides.toolbox,
  });
  const client = overrides.model ?? new OpenAIChatModel(config.model);
  const model = overrides.wrapModel ? overrides.wrapModel(client) : client;
  const tools = overrides.tools ? overrides.tools(toolbox.tools) : toolbox.tools;
  const tokenCounter = tokenCounters()(config.model.model);
  // Asked once at start-up (a few seconds at most when the server is slow to say): every request is
  // then fitted to the window before it is sent. Unknown: requests go as they are, and a server's
  // context-length error names MODEL_CONTEXT_TOKENS.
  const contextTokens = config.model.contextTokens ?? (await contextWindowOf(client));
  const fitContext = contextTokens ? contextFit({ windowTokens: contextTokens, counter: tokenCounter, defaultReplyTokens: config.model.maxTokens }) : undefined;
  const defaults = { ...engineDefaults(config), maxTokens: config.model.maxTokens };
  const engine = createEngine({ model, tools, defaults, fetch: overrides.fetch, fitContext });
  return { engine, toolbox, tokenCounter, contextTokens, close: () => toolbox.close() };
}

/** The context window a model client can report (the OpenAI-compatible client can); undefined otherwise. */
async function contextWindowOf(model: ChatModel): Promise<number | undefined> {
  const reporter = model as ChatModel & { contextTokens?: () => Promise<number | undefined> };
  return reporter.contextTokens ? reporter.contextTokens().catch(() => undefined) : undefined;
}
