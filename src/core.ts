/**
 * What every entry point shares, built from the configuration: the model client, the tools and the
 * engine over them. `npm start` (through `app.ts`) and `npm run ask` both start here, so the terminal
 * runs exactly the engine and tools the bot runs.
 */
import { takesImages, type Config } from './config.js';
import { createEngine, type Engine, type RunDefaults } from './agent/engine.js';
import type { ToolDefinition } from './agent/tool.js';
import type { ChatModel, FitContext } from './agent/types.js';
import OpenAI from 'openai';
import { builtinContextTokens } from './llm/context-window.js';
import type { KnowledgeBase } from './knowledge/types.js';
import { parserOptionsFrom } from './knowledge/open-configured.js';
import type { ThreadIndex } from './knowledge/thread-index/index.js';
import type { MemberMemoryStore } from './state/index.js';
import { OpenAIChatModel } from './llm/openai-model.js';
import { contextFit, tokenCounters, type TokenCounter } from './state/index.js';
import { createToolbox, type SearchAllowance, type Toolbox, type ToolboxOptions } from '../tools/index.js';
import { chooseSandbox, McpServers, type McpLogger, type McpServersOptions } from './mcp/index.js';

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
  /** MCP timing for tests (how long start-up waits for servers, the first reconnect wait). */
  mcp?: Pick<McpServersOptions, 'readyWaitMs' | 'backoffMs'>;
}

export interface Core {
  engine: Engine;
  toolbox: Toolbox;
  /** The model runs use unless a moderator chose another for the place (OPENAI_MODEL). */
  defaultModel: string;
  /** The client for a model by name (one per name, so what the engine learns is kept per model). */
  modelFor(name: string): ChatModel;
  /** The models the server lists (`/v1/models`), for choosing one when OPENAI_MODELS is `*`. */
  serverModels(): Promise<string[]>;
  /** Counts tokens for the configured model (thread histories, the context fit), its cache shared. */
  tokenCounter: TokenCounter;
  /** The default model's context window, when known: MODEL_CONTEXT_TOKENS, the server's report, or the built-in table. */
  contextTokens: number | undefined;
  /** The MCP servers (none configured, or `--no-mcp`: an empty set). */
  mcp: McpServers;
  /** Stop what the tools hold (the calculator's workers, the MCP servers). */
  close(): Promise<void>;
}

/** Parts the caller opened and owns (the core uses them but does not close them). */
export interface CoreParts {
  /** The knowledge base, when configured: adds `search_knowledge` to the tools. */
  knowledge?: KnowledgeBase;
  /** What members asked the bot to remember: adds `remember` and `forget`. */
  memory?: MemberMemoryStore;
  /** The server's past threads: adds `search_threads`. */
  threads?: ThreadIndex;
  /** Where `web_search` counts each server's searches today (the usage store); none: no daily cap. */
  searchAllowance?: SearchAllowance;
  /** Where MCP servers' connections are logged (default: nowhere). */
  logger?: McpLogger;
  /** Leave the MCP servers out (`npm run ask -- --no-mcp`). */
  noMcp?: boolean;
  /** Told of each MCP call's outcome (metrics). */
  onMcpCall?: McpServersOptions['onCall'];
}

export async function createCore(
  config: Pick<Config, 'agent' | 'model' | 'tools'> & Partial<Pick<Config, 'mcp' | 'attachments' | 'knowledge'>>,
  overrides: CoreOverrides = {},
  parts: CoreParts = {},
): Promise<Core> {
  const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };
  // Connected in parallel with the model server's context-window question below; waits a few seconds at most.
  const servers = parts.noMcp ? [] : (config.mcp?.servers ?? []);
  // Stdio servers start inside the best sandbox the host allows (MCP_SANDBOX); said once at start-up.
  const sandbox = config.mcp && servers.some((s) => s.kind === 'stdio')
    ? chooseSandbox({ setting: config.mcp.sandbox, user: config.mcp.sandboxUser, hidden: config.mcp.hiddenPaths })
    : undefined;
  if (sandbox) (parts.logger ?? quiet)[sandbox.kind === 'none' ? 'warn' : 'info']({ sandbox: sandbox.kind }, sandbox.describe);
  const mcp = new McpServers(servers, {
    logger: parts.logger ?? quiet,
    callTimeoutMs: config.agent.toolTimeoutMs,
    onCall: parts.onMcpCall,
    sandbox,
    ...overrides.mcp,
  });
  const mcpStarted = mcp.start();
  const toolbox = createToolbox({
    wikipediaApiUrl: config.tools.wikipediaApiUrl,
    userAgent: config.tools.userAgent,
    calculator: { workers: config.tools.calculatorWorkers },
    // read_url's PDFs are read as added ones are: the same pages, time, memory and inflate caps.
    pdf: config.knowledge && parserOptionsFrom(config.knowledge),
    knowledge: parts.knowledge,
    memory: parts.memory,
    threads: parts.threads,
    webSearch: config.tools.webSearch && { ...config.tools.webSearch, allowance: parts.searchAllowance },
    ...overrides.toolbox,
  });
  const clients = new Map<string, ChatModel>();
  const modelFor = (name: string): ChatModel => {
    let model = clients.get(name);
    if (!model) {
      const client = name === config.model.model && overrides.model ? overrides.model : new OpenAIChatModel({ ...config.model, model: name });
      model = overrides.wrapModel ? overrides.wrapModel(client) : client;
      clients.set(name, model);
    }
    return model;
  };
  const defaultClient = modelFor(config.model.model);
  const tools = overrides.tools ? overrides.tools(toolbox.tools) : toolbox.tools;
  const counters = tokenCounters();
  const windows = new ContextWindows(config.model, (name) => modelFor(name));
  // Asked once at start-up (a few seconds at most when the server is slow to say): every request is
  // then fitted to its model's window before it is sent. Unknown: requests go as they are, and a
  // server's context-length error names MODEL_CONTEXT_TOKENS.
  const [contextTokens] = await Promise.all([windows.learn(config.model.model), mcpStarted]);
  const fits = new Map<string, FitContext>();
  const fitContext: FitContext = (request, hard) => {
    const windowTokens = windows.known(request.model);
    if (!windowTokens) return request.messages;
    let fit = fits.get(request.model);
    if (!fit) {
      fit = contextFit({ windowTokens, counter: counters(request.model), defaultReplyTokens: config.model.maxTokens });
      fits.set(request.model, fit);
    }
    return fit(request, hard);
  };
  const defaults = { ...engineDefaults(config), maxTokens: config.model.maxTokens };
  // MCP tools are offered after the bot's own, and change when their servers change them.
  const vision = config.attachments?.vision ?? false;
  const engine = createEngine({
    model: defaultClient,
    tools,
    moreTools: () => mcp.tools(),
    defaults,
    fetch: overrides.fetch,
    fitContext,
    // Vision models (MODEL_VISION) see the images tools return, as they see members' images.
    toolImages: (model) => takesImages(vision, model),
  });
  return {
    engine,
    toolbox,
    defaultModel: config.model.model,
    modelFor,
    serverModels: () => listServerModels(config.model),
    tokenCounter: counters(config.model.model),
    contextTokens,
    mcp,
    close: async () => {
      await Promise.all([toolbox.close(), mcp.close()]);
    },
  };
}

/**
 * Context windows by model: MODEL_CONTEXT_TOKENS for the default model, else what the client reports
 * (the server, or the built-in table). A model first seen in a run is looked up in the background;
 * its requests go unfitted until the answer is in.
 */
class ContextWindows {
  private readonly byModel = new Map<string, number | undefined>();
  private readonly asked = new Set<string>();

  constructor(
    private readonly config: Config['model'],
    private readonly modelFor: (name: string) => ChatModel,
  ) {}

  async learn(name: string): Promise<number | undefined> {
    this.asked.add(name);
    const tokens = (name === this.config.model ? this.config.contextTokens : undefined) ?? builtinContextTokens(name) ?? (await contextWindowOf(this.modelFor(name)));
    this.byModel.set(name, tokens);
    return tokens;
  }

  known(name: string): number | undefined {
    if (!this.asked.has(name)) void this.learn(name);
    return this.byModel.get(name);
  }
}

/** The model names the server lists at `/v1/models`; none when it cannot say. */
async function listServerModels(config: Config['model']): Promise<string[]> {
  try {
    const client = new OpenAI({ apiKey: config.apiKey, baseURL: config.baseURL, maxRetries: 0, timeout: 5_000 });
    const names: string[] = [];
    for await (const model of client.models.list()) names.push(model.id);
    return names;
  } catch {
    return [];
  }
}
/** The context window a model client can report (the OpenAI-compatible client can); undefined otherwise. */
async function contextWindowOf(model: ChatModel): Promise<number | undefined> {
  const reporter = model as ChatModel & { contextTokens?: () => Promise<number | undefined> };
  return reporter.contextTokens ? reporter.contextTokens().catch(() => undefined) : undefined;
}
