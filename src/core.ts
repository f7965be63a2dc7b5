/**
 * What every entry point shares, built from the configuration: the model client, the tools and the
 * engine over them. `npm start` (through `app.ts`) and `npm run ask` both start here, so the terminal
 * runs exactly the engine and tools the bot runs.
 */
import type { Config } from './config.js';
import { createEngine, type Engine, type RunDefaults } from './agent/engine.js';
import type { ToolDefinition } from './agent/tool.js';
import type { ChatModel } from './agent/types.js';
import type { KnowledgeBase } from './knowledge/types.js';
import { OpenAIChatModel } from './llm/openai-model.js';
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
}

export interface Core {
  engine: Engine;
  toolbox: Toolbox;
  /** Stop what the tools hold (the calculator's workers). */
  close(): Promise<void>;
}

/** Parts the caller opened and owns (the core uses them but does not close them). */
export interface CoreParts {
  /** The knowledge base, when configured: adds `search_knowledge` to the tools. */
  knowledge?: KnowledgeBase;
}

export function createCore(config: Pick<Config, 'agent' | 'model' | 'tools'>, overrides: CoreOverrides = {}, parts: CoreParts = {}): Core {
  const toolbox = createToolbox({
    wikipediaApiUrl: config.tools.wikipediaApiUrl,
    userAgent: config.tools.userAgent,
    calculator: { workers: config.tools.calculatorWorkers },
    knowledge: parts.knowledge,
    ...overrides.toolbox,
  });
  const model = overrides.model ?? new OpenAIChatModel(config.model);
  const tools = overrides.tools ? overrides.tools(toolbox.tools) : toolbox.tools;
  const engine = createEngine({ model, tools, defaults: engineDefaults(config), fetch: overrides.fetch });
  return { engine, toolbox, close: () => toolbox.close() };
}
