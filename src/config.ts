/**
 * The only reader of the environment. `loadConfig` validates everything at once and throws a
 * ConfigError listing every problem (never a secret's value), so a new user fixes their `.env` in one go.
 */
import fs from 'node:fs';
import path from 'node:path';
import dotenv from 'dotenv';
import { ConfigError } from './errors.js';
import type { ProtocolSetting } from './agent/types.js';
import { DEFAULT_RUN, STEP_LIMIT } from './agent/run-defaults.js';
import { parseModelPrices, priceTable, type PriceTable } from './state/usage/model-prices.js';
import type { UsageLimits } from './state/usage/types.js';
import { parseMcpServers, type McpServerConfig } from './mcp/server-config.js';
import { backendFor, noKnowledgeText, schemesText, storageFolders, supportsOf } from './storage/registry.js';

export interface ModelConfig {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** OPENAI_TIMEOUT_MS: longest wait for the server to start answering (connect, read the prompt). */
  timeoutMs: number;
  /** OPENAI_IDLE_TIMEOUT_MS: longest silence once it answers, before the first token or between tokens. Default 30000. */
  idleTimeoutMs?: number;
  maxRetries: number;
  maxRetryWaitMs: number;
  /** MODEL_MAX_TOKENS: most tokens one reply may have; sent when a request names no limit. */
  maxTokens?: number;
  /** MODEL_CONTEXT_TOKENS: the model's context window, when set; else asked of the server or the built-in table. */
  contextTokens?: number;
  /**
   * OPENAI_MODELS: the models moderators may choose per server or channel (`/settings model`), always
   * including OPENAI_MODEL; `*` allows any model the server lists. Default: just OPENAI_MODEL.
   */
  models?: readonly string[] | '*';
}

export interface AgentConfig {
  protocol: ProtocolSetting;
  maxSteps: number;
  toolTimeoutMs: number;
  runTimeoutMs: number;
  toolOutputMaxChars: number;
  /** APPROVAL_TIMEOUT_MS: how long a run stopped at a call to a tool in `ask` mode waits for Approve or Deny. */
  approvalTimeoutMs: number;
}

export interface ToolsConfig {
  wikipediaApiUrl: string;
  userAgent: string;
  /** Calculator worker processes, each running one expression at a time. */
  calculatorWorkers: number;
  /** `web_search`: the provider and its credential; undefined (no web_search tool) when none is set. */
  webSearch?: WebSearchConfig;
}

export interface WebSearchConfig {
  /** WEB_SEARCH_PROVIDER, or the one provider whose setting is given. */
  provider: 'searxng' | 'brave' | 'tavily';
  /** SEARXNG_URL (SearXNG only). */
  url?: string;
  /** BRAVE_API_KEY or TAVILY_API_KEY. */
  apiKey?: string;
  /** WEB_SEARCH_DAILY: searches per server per UTC day; 0 is no cap. Default 100. */
  dailyLimit: number;
}

export interface StorageConfig {
  keyvUrl: string;
  conversationTtlDays?: number;
  historyTokenBudget: number;
  /** MEMORY_TOKEN_BUDGET: most tokens the members' remembered notes may take in a turn's prompt. Default 600. */
  memoryTokenBudget: number;
}

export interface KnowledgeConfig {
  /**
   * Where the knowledge base lives: KNOWLEDGE_URL, else the KEYV_URL database when that is SQLite,
   * PostgreSQL or memory. Undefined (the knowledge base is off) when KEYV_URL is Redis and
   * KNOWLEDGE_URL is unset: Redis has no full-text search.
   */
  url?: string;
  /** Largest document, in bytes (KNOWLEDGE_MAX_FILE_BYTES). */
  maxFileBytes: number;
  /** Most bytes one server's documents may take (KNOWLEDGE_MAX_BYTES). */
  maxBytes: number;
  /** Largest PDF or Word file, as a file (KNOWLEDGE_MAX_UPLOAD_BYTES); its text must still fit maxFileBytes. */
  maxUploadBytes: number;
  /** Most pages of a PDF (KNOWLEDGE_MAX_PAGES). */
  maxPages: number;
  /** Longest a PDF, Word or HTML file may take to read before it is stopped (KNOWLEDGE_PARSE_TIMEOUT_MS). */
  parseTimeoutMs: number;
  /** Most memory the reader process may hold, resident and heap, in MB (KNOWLEDGE_PARSE_MEMORY_MB). */
  parseMemoryMb: number;
  /** Most bytes a PDF's streams may inflate to together (KNOWLEDGE_PDF_MAX_INFLATED_BYTES). */
  maxPdfInflatedBytes: number;
  /** Most bytes one PDF page's content, or any one stream that is no image, may inflate to (KNOWLEDGE_PDF_MAX_PAGE_BYTES). */
  maxPdfPageBytes: number;
  /** Meaning search (EMBEDDING_MODEL set); undefined: words only. */
  embedding?: EmbeddingConfig;
}

/** The OpenAI-compatible `/v1/embeddings` meaning search uses. */
export interface EmbeddingConfig {
  /** EMBEDDING_MODEL, e.g. text-embedding-3-small or nomic-embed-text. */
  model: string;
  /** EMBEDDING_BASE_URL, else OPENAI_BASE_URL. */
  baseURL?: string;
  /** EMBEDDING_API_KEY, else OPENAI_API_KEY. */
  apiKey: string;
  /** EMBEDDING_DIMENSIONS: asked of models that can shorten their vectors; unset: the model's own. */
  dimensions?: number;
  /** EMBEDDING_BATCH_SIZE: passages per request (default 64). */
  batchSize: number;
  /** OPENAI_TIMEOUT_MS and OPENAI_MAX_RETRIES apply to embedding requests too. */
  timeoutMs: number;
  maxRetries: number;
}

export interface DiscordConfig {
  token: string;
  applicationId?: string;
  guildId?: string;
  messageContent: boolean;
  apiBaseUrl?: string;
}

/** Usage limits, prices and input rules (issue 9). In every limit, 0 means no limit. */
export interface GovernanceConfig {
  /** Defaults every server starts with; moderators override them with `/settings limits`. */
  limits: UsageLimits;
  /** Built-in prices with MODEL_PRICES on top, in dollars per million tokens. */
  prices: PriceTable;
  /** Answer `/ask` in direct messages (with the default tools minus network tools). */
  allowDms: boolean;
  /** Longest question accepted, checked server-side whatever the client sent. */
  questionMaxChars: number;
  /** REPLY_CHAIN_MAX_MESSAGES: most earlier messages a question that replies to them takes along. Default 5. */
  replyChainMax: number;
}

/** Scheduled questions (issue 32): the operator's caps and timing; who may is per server (`/settings schedules`). */
export interface SchedulesConfig {
  /** SCHEDULES_PER_SERVER: schedules one server may have (0: no cap). Default 20. */
  perServer: number;
  /** SCHEDULES_PER_MEMBER: schedules one member may own in a server (0: no cap). Default 5. */
  perMember: number;
  /** SCHEDULE_MIN_INTERVAL_MINUTES: fewest minutes between two runs of a schedule, 1 to 1440. Default 15. */
  minIntervalMinutes: number;
  /** SCHEDULE_GRACE_MINUTES: a run missed while the bot was down is made at start-up if at most this late, else skipped. Default 60. */
  graceMinutes: number;
}

/** Skills (issue 45): a server's own commands; who may write them is per server (`/settings skills`). */
export interface SkillsConfig {
  /** SKILLS_DIR: the operator's read-only skills for every server, one folder with a SKILL.md each. Unset: none. */
  dir?: string;
  /** SKILLS_MAX_PER_GUILD: skills one server may have, 1 to 500. Default 50. */
  maxPerGuild: number;
}

/** Files members attach to questions (issue 11). */
export interface AttachmentsConfig {
  /** MODEL_VISION: which models take images: all (true), none (false, the default), or those named. */
  vision: boolean | string[];
  /** ATTACHMENT_MAX_BYTES: largest text file read into a question, in bytes. Default 100,000. */
  maxTextBytes: number;
  /** ATTACHMENT_IMAGE_MAX_BYTES: largest image sent to a vision model, in bytes. Default 5,000,000. */
  maxImageBytes: number;
}

/** Whether `model` takes images, by MODEL_VISION (a list is matched by exact model name, ignoring case). */
export function takesImages(vision: AttachmentsConfig['vision'], model: string): boolean {
  return typeof vision === 'boolean' ? vision : vision.includes(model.toLowerCase());
}

/** Running in production: health endpoints and shards. */
export interface OpsConfig {
  /** HEALTH_PORT: serve /healthz, /readyz and /metrics (each shard on HEALTH_PORT + its id). Unset: no server. */
  healthPort?: number;
  /** HEALTH_HOST: the address the health server binds. Default 127.0.0.1. */
  healthHost: string;
  /** SHARDS: unset runs one process; `auto` (Discord's recommendation) or a count starts discord.js's ShardingManager. */
  shards?: 'auto' | number;
  /** Set inside a process the ShardingManager started: which shard this is, of how many. */
  shard?: { id: number; count: number };
  /** SHARD_IDS: the shards this host runs, of SHARD_COUNT in all (several hosts split them). Unset: all. */
  shardIds?: number[];
  /**
   * DISCORD_REST_PROXY: where every REST call goes. `auto` (unset): a manager running more than one
   * shard starts one proxy for them; a URL: that proxy (several hosts share one); `off`: each process
   * keeps its own limiter (a single process, or to compare).
   */
  restProxy: 'auto' | 'off' | { url: string };
  /** REST_PROXY_PORT and REST_PROXY_HOST: where `npm run rest-proxy` listens. Default 8080 on 127.0.0.1. */
  restProxyPort: number;
  restProxyHost: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT set: each run exported as a trace over OTLP/HTTP. */
  traces?: TracesConfig;
}

/** Traces (OpenTelemetry, OTLP/HTTP JSON). */
export interface TracesConfig {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** OTEL_SERVICE_NAME. Default `threadwise`. */
  serviceName: string;
  /** OTEL_CAPTURE_CONTENT: put questions, answers, tool arguments and results on spans. Default false. */
  captureContent: boolean;
}

/** MCP servers whose tools the bot offers (issue 22). */
export interface McpConfig {
  /** MCP_SERVERS_FILE, as given (unset: no MCP servers). */
  file?: string;
  servers: McpServerConfig[];
  /**
   * MCP_SANDBOX: how stdio servers are kept from the bot's secrets. `auto` (default): bubblewrap where
   * it runs here, else another user (MCP_SANDBOX_USER) where the bot runs as root, else none.
   */
  sandbox: 'auto' | 'bwrap' | 'user' | 'off';
  /** MCP_SANDBOX_USER: the user stdio servers run as in `user` mode. Default `nobody`. */
  sandboxUser: string;
  /**
   * Files and folders a sandboxed server must not see: the `.env` read, every secret file (`*_FILE`),
   * MCP_SERVERS_FILE and the folders of SQLite storage.
   */
  hiddenPaths: string[];
}

/** `npm run eval` (issue 46). */
export interface EvaluationConfig {
  /** EVAL_JUDGE_MODEL: the model that grades `judge` checks, on the same server. Unset: OPENAI_MODEL. */
  judgeModel?: string;
}

/**
 * The moderators' web console (issue 47): off unless CONSOLE_PORT is set. Signed in with Discord (OAuth2
 * with `state` and PKCE), so it needs the application's id and client secret, and its own session secret.
 */
export interface ConsoleConfig {
  /** CONSOLE_PORT: where it listens (0: a free port, for tests). */
  port: number;
  /** CONSOLE_HOST: the address it binds. Default 127.0.0.1 (behind a reverse proxy that terminates TLS). */
  host: string;
  /** CONSOLE_PUBLIC_URL without a trailing slash: the address people open; the OAuth2 redirect is `<it>/auth/callback`. */
  publicUrl: string;
  /** The public URL is https: cookies are `Secure` (and `__Host-`). Plain http only for a loopback address. */
  secure: boolean;
  /** DISCORD_APPLICATION_ID: the OAuth2 client id. */
  clientId: string;
  /** DISCORD_CLIENT_SECRET (or _FILE). */
  clientSecret: string;
  /** CONSOLE_SESSION_SECRET (or _FILE), at least 32 bytes: signs the cookies and the CSRF tokens. */
  sessionSecret: string;
}

export interface Config {
  console?: ConsoleConfig;
  model: ModelConfig;
  mcp: McpConfig;
  agent: AgentConfig;
  tools: ToolsConfig;
  storage: StorageConfig;
  knowledge: KnowledgeConfig;
  discord?: DiscordConfig;
  governance: GovernanceConfig;
  schedules: SchedulesConfig;
  skills: SkillsConfig;
  attachments: AttachmentsConfig;
  ops: OpsConfig;
  /** Read by `npm run eval` only (optional so other callers' configurations need not name it). */
  evaluation?: EvaluationConfig;
  logLevel: string;
}

type Env = Record<string, string | undefined>;

/**
 * Settings that hold secrets. Each may instead be read from a file named by `<NAME>_FILE` (the container
 * convention: `DISCORD_TOKEN_FILE=/run/secrets/discord_token`), so the secret never sits in the bot's
 * environment, where any process running as the bot's user could read it from /proc/<pid>/environ.
 */
export const SECRET_SETTINGS = ['DISCORD_TOKEN', 'OPENAI_API_KEY', 'BRAVE_API_KEY', 'TAVILY_API_KEY', 'KEYV_URL', 'KNOWLEDGE_URL', 'DISCORD_CLIENT_SECRET', 'CONSOLE_SESSION_SECRET'] as const;

/** What the caller needs: the bot needs Discord settings, the terminal runner does not. */
export interface LoadOptions {
  needDiscord: boolean;
  /** Whether the model server settings are required (default true; `npm run kb` and `deploy-commands` never call a model). */
  needModel?: boolean;
  /** Read `.env` from this directory first (default: the working directory). Tests pass none. */
  dotenvDir?: string | false;
}

const WHERE = {
  DISCORD_TOKEN: 'Discord Developer Portal → your application → Bot → Reset Token',
  OPENAI_API_KEY:
    'your model provider (platform.openai.com → API keys); for a local server (Ollama, vLLM, llama.cpp) set OPENAI_BASE_URL and any placeholder key works',
};

/** Read and validate the configuration. Throws ConfigError naming every problem. */
export function loadConfig(options: LoadOptions, env: Env = process.env): Config {
  if (options.dotenvDir !== false) {
    dotenv.config({ path: path.join(options.dotenvDir ?? process.cwd(), '.env'), quiet: true });
  }
  const problems: string[] = [];
  const secretFiles: string[] = [];
  env = withSecretFiles(env, problems, secretFiles);
  const read = new EnvReader(env, problems);

  const baseURL = read.url('OPENAI_BASE_URL');
  const apiKey = read.string('OPENAI_API_KEY') ?? (baseURL ? 'not-needed' : undefined);
  if (!apiKey && options.needModel !== false) problems.push(`OPENAI_API_KEY is missing (set it, or OPENAI_API_KEY_FILE to a file holding it). Get it from ${WHERE.OPENAI_API_KEY}.`);

  const model: ModelConfig = {
    apiKey: apiKey ?? '',
    baseURL,
    model: read.string('OPENAI_MODEL') ?? 'gpt-4o-mini',
    timeoutMs: read.int('OPENAI_TIMEOUT_MS', 60_000, 1_000),
    idleTimeoutMs: read.int('OPENAI_IDLE_TIMEOUT_MS', 30_000, 1_000),
    maxRetries: read.int('OPENAI_MAX_RETRIES', 2, 0, 10),
    maxRetryWaitMs: read.int('OPENAI_MAX_RETRY_WAIT_MS', 10_000, 0),
    maxTokens: read.int('MODEL_MAX_TOKENS', 1_024, 16, 1_000_000),
    contextTokens: optionalPositive(read.int('MODEL_CONTEXT_TOKENS', 0, 0, 100_000_000)),
  };
  const models = read.string('OPENAI_MODELS');
  if (models === '*') model.models = '*';
  else if (models !== undefined) {
    const names = models.split(',').map((m) => m.trim()).filter(Boolean);
    const bad = names.filter((m) => m.length > 100 || /\s/.test(m));
    if (bad.length) problems.push(`OPENAI_MODELS must be * or a comma-separated list of model names (got "${bad[0]!.slice(0, 40)}").`);
    model.models = [...new Set([model.model, ...names])];
  }
  if (model.contextTokens !== undefined && model.maxTokens !== undefined && model.maxTokens >= model.contextTokens) {
    problems.push(
      `MODEL_MAX_TOKENS (${model.maxTokens}) must be smaller than MODEL_CONTEXT_TOKENS (${model.contextTokens}): the reply shares the context with the request.`,
    );
  }

  const protocol = read.string('AGENT_PROTOCOL') ?? DEFAULT_RUN.protocol;
  if (!['auto', 'native', 'text'].includes(protocol)) {
    problems.push(`AGENT_PROTOCOL must be auto, native or text (got "${protocol}").`);
  }
  const agent: AgentConfig = {
    protocol: protocol as ProtocolSetting,
    maxSteps: read.int('AGENT_MAX_STEPS', DEFAULT_RUN.maxSteps, STEP_LIMIT.min, STEP_LIMIT.max),
    toolTimeoutMs: read.int('TOOL_TIMEOUT_MS', DEFAULT_RUN.toolTimeoutMs, 100),
    runTimeoutMs: read.int('RUN_TIMEOUT_MS', DEFAULT_RUN.runTimeoutMs, 1_000),
    toolOutputMaxChars: read.int('TOOL_OUTPUT_MAX_CHARS', DEFAULT_RUN.maxToolOutputChars, 200),
    approvalTimeoutMs: read.int('APPROVAL_TIMEOUT_MS', 86_400_000, 1_000, 7 * 86_400_000),
  };

  const language = read.string('WIKIPEDIA_LANGUAGE') ?? 'en';
  if (!/^[a-z][a-z-]{1,15}$/.test(language)) {
    problems.push(`WIKIPEDIA_LANGUAGE must be a Wikipedia language code such as en, de or fr (got "${language}").`);
  }
  const tools: ToolsConfig = {
    wikipediaApiUrl: read.url('WIKIPEDIA_API_URL') ?? `https://${language}.wikipedia.org/w/api.php`,
    userAgent:
      read.string('HTTP_USER_AGENT') ??
      'threadwise/0.1 (Discord ReAct bot; set HTTP_USER_AGENT to include your contact address)',
    calculatorWorkers: read.int('CALCULATOR_WORKERS', 2, 1, 16),
    webSearch: readWebSearch(read, problems),
  };

  const ttl = read.int('CONVERSATION_TTL_DAYS', 0, 0);
  const storage: StorageConfig = {
    keyvUrl: read.string('KEYV_URL') ?? 'sqlite://data/threadwise.sqlite',
    conversationTtlDays: ttl > 0 ? ttl : undefined,
    historyTokenBudget: read.int('HISTORY_TOKEN_BUDGET', 8_000, 500),
    memoryTokenBudget: read.int('MEMORY_TOKEN_BUDGET', 600, 50, 20_000),
  };
  if (!backendFor(storage.keyvUrl)) problems.push(`KEYV_URL must start with ${schemesText()}.`);

  let prices = priceTable();
  const pricesJson = read.string('MODEL_PRICES');
  if (pricesJson !== undefined) {
    const parsed = parseModelPrices(pricesJson);
    if ('problem' in parsed) problems.push(parsed.problem);
    else prices = priceTable(parsed.prices);
  }
  const governance: GovernanceConfig = {
    limits: {
      runsPerHour: read.int('USER_RUNS_PER_HOUR', 20, 0, 10_000),
      concurrentRuns: read.int('USER_CONCURRENT_RUNS', 2, 0, 100),
      userDailyTokens: read.int('USER_DAILY_TOKENS', 200_000, 0),
      guildDailyTokens: read.int('GUILD_DAILY_TOKENS', 2_000_000, 0),
    },
    prices,
    allowDms: read.bool('ALLOW_DMS', false),
    questionMaxChars: read.int('QUESTION_MAX_CHARS', 4_000, 10, 100_000),
    replyChainMax: read.int('REPLY_CHAIN_MAX_MESSAGES', 5, 0, 20),
  };
  const schedules: SchedulesConfig = {
    perServer: read.int('SCHEDULES_PER_SERVER', 20, 0, 1_000),
    perMember: read.int('SCHEDULES_PER_MEMBER', 5, 0, 1_000),
    minIntervalMinutes: read.int('SCHEDULE_MIN_INTERVAL_MINUTES', 15, 1, 1_440),
    graceMinutes: read.int('SCHEDULE_GRACE_MINUTES', 60, 0, 10_080),
  };
  const skillsDir = read.string('SKILLS_DIR');
  const skills: SkillsConfig = { ...(skillsDir ? { dir: skillsDir } : {}), maxPerGuild: read.int('SKILLS_MAX_PER_GUILD', 50, 1, 500) };
  const knowledgeUrl = read.string('KNOWLEDGE_URL');
  if (knowledgeUrl !== undefined && supportsOf(knowledgeUrl)?.knowledge !== true) {
    problems.push(`KNOWLEDGE_URL must start with ${schemesText('knowledge')} (${noKnowledgeText()}).`);
  }
  // Off (undefined) only when KEYV_URL's backend says it cannot hold the index; an unknown KEYV_URL is reported above.
  const keyvKnowledge = supportsOf(storage.keyvUrl)?.knowledge;
  const knowledge: KnowledgeConfig = {
    url: knowledgeUrl ?? (keyvKnowledge !== undefined && keyvKnowledge !== true ? undefined : storage.keyvUrl),
    maxFileBytes: read.int('KNOWLEDGE_MAX_FILE_BYTES', 1_000_000, 1_000, 1_000_000_000),
    maxBytes: read.int('KNOWLEDGE_MAX_BYTES', 50_000_000, 1_000, Number.MAX_SAFE_INTEGER),
    maxUploadBytes: read.int('KNOWLEDGE_MAX_UPLOAD_BYTES', 10_000_000, 1_000, 1_000_000_000),
    maxPages: read.int('KNOWLEDGE_MAX_PAGES', 1_000, 1, 100_000),
    parseTimeoutMs: read.int('KNOWLEDGE_PARSE_TIMEOUT_MS', 60_000, 1_000, 3_600_000),
    parseMemoryMb: read.int('KNOWLEDGE_PARSE_MEMORY_MB', 512, 128, 16_384),
    maxPdfInflatedBytes: read.int('KNOWLEDGE_PDF_MAX_INFLATED_BYTES', 256_000_000, 1_000_000, 16_000_000_000),
    maxPdfPageBytes: read.int('KNOWLEDGE_PDF_MAX_PAGE_BYTES', 64_000_000, 1_000_000, 16_000_000_000),
    embedding: readEmbedding(read, model, problems),
  };
  if (knowledge.maxFileBytes > knowledge.maxBytes) {
    problems.push(`KNOWLEDGE_MAX_FILE_BYTES (${knowledge.maxFileBytes}) cannot be larger than KNOWLEDGE_MAX_BYTES (${knowledge.maxBytes}).`);
  }

  const attachments: AttachmentsConfig = {
    vision: readVision(read.string('MODEL_VISION')),
    maxTextBytes: read.int('ATTACHMENT_MAX_BYTES', 100_000, 1_000, 10_000_000),
    maxImageBytes: read.int('ATTACHMENT_IMAGE_MAX_BYTES', 5_000_000, 10_000, 20_000_000),
  };

  let discord: DiscordConfig | undefined;
  if (options.needDiscord) {
    const token = read.string('DISCORD_TOKEN');
    if (!token) problems.push(`DISCORD_TOKEN is missing (set it, or DISCORD_TOKEN_FILE to a file holding it). Get it from ${WHERE.DISCORD_TOKEN}.`);
    discord = {
      token: token ?? '',
      applicationId: read.snowflake('DISCORD_APPLICATION_ID'),
      guildId: read.snowflake('DISCORD_GUILD_ID'),
      messageContent: read.bool('DISCORD_MESSAGE_CONTENT', false),
      apiBaseUrl: read.url('DISCORD_API_BASE_URL'),
    };
  }

  const ops = readOps(read, env, storage.keyvUrl, problems);
  const mcp = readMcp(read.string('MCP_SERVERS_FILE'), env, problems, secretFiles);
  const sandbox = (read.string('MCP_SANDBOX') ?? 'auto').toLowerCase();
  if (!['auto', 'bwrap', 'user', 'off'].includes(sandbox)) problems.push(`MCP_SANDBOX must be auto, bwrap, user or off (got "${sandbox}").`);
  mcp.sandbox = sandbox as McpConfig['sandbox'];
  mcp.sandboxUser = read.string('MCP_SANDBOX_USER') ?? 'nobody';
  if (!/^[a-z_][a-z0-9_-]{0,31}$/i.test(mcp.sandboxUser)) problems.push(`MCP_SANDBOX_USER must be a user name (got "${mcp.sandboxUser.slice(0, 40)}").`);
  mcp.hiddenPaths = hiddenPaths(options, secretFiles, mcp.file, [storage.keyvUrl, knowledge.url]);

  const logLevel = read.string('LOG_LEVEL') ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(logLevel)) {
    problems.push(`LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "${logLevel}").`);
  }

  const judgeModel = read.string('EVAL_JUDGE_MODEL');
  if (judgeModel !== undefined && (judgeModel.length > 200 || /\s/.test(judgeModel))) problems.push(`EVAL_JUDGE_MODEL must be a model name (got "${judgeModel.slice(0, 40)}").`);
  const evaluation: EvaluationConfig = { judgeModel };
  const consoleConfig = discord ? readConsole(read, discord, problems) : undefined;

  if (problems.length > 0) throw new ConfigError(problems);
  return { ...(consoleConfig ? { console: consoleConfig } : {}), model, mcp, agent, tools, storage, knowledge, discord, governance, schedules, skills, attachments, ops, evaluation, logLevel };
}

/** Host names a plain-http console may use: this machine only (a console on the network must be https). */
const LOOPBACK_HOST = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/**
 * CONSOLE_*: the web console, read only when CONSOLE_PORT is set. Everything it needs must be there, or
 * it is not started at all: there is no "insecure" switch, no default secret, no admin password.
 */
function readConsole(read: EnvReader, discord: DiscordConfig, problems: string[]): ConsoleConfig | undefined {
  if (read.string('CONSOLE_PORT') === undefined) return undefined;
  const port = read.int('CONSOLE_PORT', 0, 0, 65_535);
  const publicUrl = read.url('CONSOLE_PUBLIC_URL');
  const clientSecret = read.string('DISCORD_CLIENT_SECRET');
  const sessionSecret = read.string('CONSOLE_SESSION_SECRET');
  let secure = false;
  if (!publicUrl) {
    if (read.string('CONSOLE_PUBLIC_URL') === undefined) problems.push('CONSOLE_PUBLIC_URL is missing: the address people open the console at (https://console.example.org); Discord sends them back to <it>/auth/callback, which must be listed under OAuth2 → Redirects in the developer portal.');
  } else {
    const url = new URL(publicUrl);
    secure = url.protocol === 'https:';
    if (url.pathname !== '/' || url.search || url.hash) problems.push(`CONSOLE_PUBLIC_URL must be an address without a path (got "${publicUrl}"): the console serves its pages from the root.`);
    if (!secure && !LOOPBACK_HOST.test(url.hostname)) problems.push(`CONSOLE_PUBLIC_URL must be https (got "${publicUrl}"): sessions and sign-in codes must not cross a network in the clear. Plain http is for 127.0.0.1 and localhost only.`);
  }
  if (!discord.applicationId) problems.push('DISCORD_APPLICATION_ID is missing: the console signs people in with Discord as your application (General Information → Application ID).');
  if (!clientSecret) problems.push('DISCORD_CLIENT_SECRET is missing (or DISCORD_CLIENT_SECRET_FILE): the console exchanges sign-in codes with it (OAuth2 → Client Secret in the developer portal).');
  if (!sessionSecret) problems.push('CONSOLE_SESSION_SECRET is missing (or CONSOLE_SESSION_SECRET_FILE): at least 32 random bytes that sign the console\'s cookies, e.g. from `openssl rand -base64 48`.');
  else if (Buffer.byteLength(sessionSecret, 'utf8') < 32) problems.push(`CONSOLE_SESSION_SECRET is ${Buffer.byteLength(sessionSecret, 'utf8')} bytes long: use at least 32 random bytes (\`openssl rand -base64 48\`).`);
  return {
    port,
    host: read.string('CONSOLE_HOST') ?? '127.0.0.1',
    publicUrl: (publicUrl ?? '').replace(/\/+$/, ''),
    secure,
    clientId: discord.applicationId ?? '',
    clientSecret: clientSecret ?? '',
    sessionSecret: sessionSecret ?? '',
  };
}

/** EMBEDDING_*: meaning search's server and model, defaulting to the chat model's server and key. */
function readEmbedding(read: EnvReader, model: ModelConfig, problems: string[]): EmbeddingConfig | undefined {
  const name = read.string('EMBEDDING_MODEL');
  const baseURL = read.url('EMBEDDING_BASE_URL') ?? model.baseURL;
  const apiKey = read.string('EMBEDDING_API_KEY') ?? (model.apiKey || (baseURL ? 'not-needed' : undefined));
  const dimensions = read.int('EMBEDDING_DIMENSIONS', 0, 0, 16_384);
  const batchSize = read.int('EMBEDDING_BATCH_SIZE', 64, 1, 2_048);
  if (name === undefined) return undefined;
  if (/\s/.test(name) || name.length > 200) problems.push(`EMBEDDING_MODEL must be a model name such as text-embedding-3-small (got "${name.slice(0, 40)}").`);
  if (!apiKey) problems.push('EMBEDDING_MODEL is set but there is no key for its server: set EMBEDDING_API_KEY (or OPENAI_API_KEY), or EMBEDDING_BASE_URL for a local server.');
  return { model: name, baseURL, apiKey: apiKey ?? '', dimensions: optionalPositive(dimensions), batchSize, timeoutMs: model.timeoutMs, maxRetries: model.maxRetries };
}

/** MCP_SERVERS_FILE: read and checked now, so a bad file stops start-up with the other problems. */
function readMcp(file: string | undefined, env: Env, problems: string[], files: string[]): McpConfig {
  const base = { sandbox: 'auto' as const, sandboxUser: 'nobody', hiddenPaths: [] };
  if (file === undefined) return { ...base, servers: [] };
  let text: string;
  try {
    text = fs.readFileSync(path.resolve(file), 'utf8');
  } catch (error) {
    problems.push(`MCP_SERVERS_FILE ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
    return { ...base, file, servers: [] };
  }
  // `${GITHUB_TOKEN}` in the file may come from GITHUB_TOKEN_FILE, like the bot's own secrets.
  const named = [...new Set([...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!))];
  const parsed = parseMcpServers(text, file, withSecretFiles(env, problems, files, named));
  problems.push(...parsed.problems);
  return { ...base, file, servers: parsed.servers };
}

/**
 * `env` with each `<NAME>_FILE` read into `<NAME>` (for the secret settings, and for any other variable a
 * servers file names as `${NAME}`): the file's text without its final line break. Setting both, or a
 * file that cannot be read, is a problem; the paths read are added to `files`.
 */
function withSecretFiles(env: Env, problems: string[], files: string[], names: readonly string[] = SECRET_SETTINGS): Env {
  const out: Env = { ...env };
  for (const name of names) {
    const key = `${name}_FILE`;
    const file = env[key];
    if (!file?.trim()) continue;
    if (env[name]?.trim()) {
      problems.push(`${name} and ${key} are both set: keep one (${key} keeps the secret out of the environment).`);
      continue;
    }
    try {
      out[name] = fs.readFileSync(path.resolve(file.trim()), 'utf8').replace(/\r?\n$/, '');
      files.push(path.resolve(file.trim()));
    } catch (error) {
      problems.push(`${key} names ${file.trim()}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
    }
  }
  return out;
}

/** What a sandboxed MCP server must not see (see McpConfig.hiddenPaths). */
function hiddenPaths(options: LoadOptions, secretFiles: string[], serversFile: string | undefined, storageUrls: Array<string | undefined>): string[] {
  const paths = [...secretFiles];
  if (options.dotenvDir !== false) paths.push(path.join(path.resolve(options.dotenvDir ?? process.cwd()), '.env'));
  if (serversFile) paths.push(path.resolve(serversFile));
  for (const url of storageUrls) {
    try {
      if (url) paths.push(...storageFolders(url, process.cwd(), 'KEYV_URL'));
    } catch {
      /* a bad storage URL is reported with the other problems */
    }
  }
  return [...new Set(paths)];
}

/** MODEL_VISION: true/false, or a comma-separated list of model names (`gpt-4o,gpt-4o-mini`). */
function readVision(raw: string | undefined): boolean | string[] {
  if (raw === undefined) return false;
  const lower = raw.toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(lower)) return true;
  if (['false', '0', 'no', 'off'].includes(lower)) return false;
  return lower.split(',').map((name) => name.trim()).filter(Boolean);
}

/** 0 means "not set" for limits that have no default. */
/** WEB_SEARCH_PROVIDER and the chosen provider's setting; undefined when web search is not set up. */
function readWebSearch(read: EnvReader, problems: string[]): WebSearchConfig | undefined {
  const given = { searxng: read.url('SEARXNG_URL'), brave: read.string('BRAVE_API_KEY'), tavily: read.string('TAVILY_API_KEY') };
  const names = { searxng: 'SEARXNG_URL', brave: 'BRAVE_API_KEY', tavily: 'TAVILY_API_KEY' } as const;
  const dailyLimit = read.int('WEB_SEARCH_DAILY', 100, 0, 1_000_000);
  const chosen = read.string('WEB_SEARCH_PROVIDER')?.toLowerCase();
  const set = (Object.keys(given) as Array<keyof typeof given>).filter((p) => given[p] !== undefined);
  if (chosen === undefined) {
    if (set.length > 1) problems.push(`${set.map((p) => names[p]).join(' and ')} are set: choose one web search provider with WEB_SEARCH_PROVIDER=${set.join('|')}.`);
    if (set.length !== 1) return undefined;
  } else if (!(chosen in given)) {
    problems.push(`WEB_SEARCH_PROVIDER must be searxng, brave or tavily (got "${chosen}").`);
    return undefined;
  }
  const provider = (chosen ?? set[0]) as keyof typeof given;
  if (given[provider] === undefined) {
    problems.push(`WEB_SEARCH_PROVIDER is ${provider} but ${names[provider]} is not set.`);
    return undefined;
  }
  return provider === 'searxng' ? { provider, url: given.searxng, dailyLimit } : { provider, apiKey: given[provider], dailyLimit };
}

function optionalPositive(value: number): number | undefined {
  return value > 0 ? value : undefined;
}

function readOps(read: EnvReader, env: Env, keyvUrl: string, problems: string[]): OpsConfig {
  const healthPort = read.string('HEALTH_PORT') === undefined ? undefined : read.int('HEALTH_PORT', 0, 0, 65_535);
  const ops: OpsConfig = { healthPort, healthHost: read.string('HEALTH_HOST') ?? '127.0.0.1', restProxy: 'auto', restProxyPort: 8080, restProxyHost: '127.0.0.1' };
  // Inside a shard process discord.js's ShardingManager has set SHARDING_MANAGER, SHARDS (this shard's
  // id, replacing the user's value) and SHARD_COUNT; the discord.js client reads them itself too.
  if (env.SHARDING_MANAGER === 'true' && env.SHARD_COUNT !== undefined) {
    const id = Number(env.SHARDS);
    const count = Number(env.SHARD_COUNT);
    if (!Number.isInteger(id) || !Number.isInteger(count) || id < 0 || id >= count) {
      problems.push(`This process was started as a shard but SHARDS="${env.SHARDS}" / SHARD_COUNT="${env.SHARD_COUNT}" are not a shard id and count.`);
    } else {
      ops.shards = count;
      ops.shard = { id, count };
    }
  } else {
    const raw = read.string('SHARDS')?.toLowerCase();
    if (raw === 'auto') ops.shards = 'auto';
    else if (raw !== undefined) {
      const count = Number(raw);
      if (Number.isInteger(count) && count >= 1 && count <= 10_000) ops.shards = count;
      else problems.push(`SHARDS must be auto or a whole number from 1 to 10000 (got "${raw}").`);
    }
  }
  readScale(read, ops, problems);
  const sharing = supportsOf(keyvUrl)?.sharing;
  if (ops.shards !== undefined && sharing !== undefined && sharing !== true) {
    problems.push(
      `SHARDS runs one process per shard, and the shards share threads, tool rules and limits through KEYV_URL: ` +
        `set KEYV_URL to ${schemesText('shared', { firstOnly: true, after: '…' })} (${sharing.why}).`,
    );
  }
  const lastPort = (healthPort ?? 0) + (typeof ops.shards === 'number' ? ops.shards - 1 : 0);
  if (healthPort !== undefined && healthPort > 0 && lastPort > 65_535) {
    problems.push(`HEALTH_PORT ${healthPort} plus one port per shard goes past 65535: choose a lower HEALTH_PORT.`);
  }
  return ops;
}

/** SHARD_COUNT and SHARD_IDS (a manager's, not a shard's), DISCORD_REST_PROXY and the OTEL_ variables. */
function readScale(read: EnvReader, ops: OpsConfig, problems: string[]): void {
  const proxy = read.string('DISCORD_REST_PROXY');
  if (proxy === undefined || proxy.toLowerCase() === 'auto') ops.restProxy = 'auto';
  else if (proxy.toLowerCase() === 'off') ops.restProxy = 'off';
  else {
    const url = read.url('DISCORD_REST_PROXY');
    if (url) ops.restProxy = { url: url.replace(/\/+$/, '') };
    else problems.push('DISCORD_REST_PROXY may also be auto or off.');
  }
  ops.restProxyPort = read.int('REST_PROXY_PORT', 8080, 1, 65_535);
  ops.restProxyHost = read.string('REST_PROXY_HOST') ?? '127.0.0.1';
  const endpoint = read.url('OTEL_EXPORTER_OTLP_ENDPOINT');
  const captureContent = read.bool('OTEL_CAPTURE_CONTENT', false);
  if (endpoint) ops.traces = { endpoint: endpoint.replace(/\/+$/, ''), serviceName: read.string('OTEL_SERVICE_NAME') ?? 'threadwise', captureContent };
  if (ops.shard) return;
  const rawCount = read.string('SHARD_COUNT');
  const rawIds = read.string('SHARD_IDS');
  if (rawCount !== undefined) {
    const count = read.int('SHARD_COUNT', 0, 1, 10_000);
    if (count === 0) return;
    if (ops.shards !== undefined && ops.shards !== count) {
      problems.push(`SHARD_COUNT (${count}, the total over every host) and SHARDS (${String(ops.shards)}) disagree: set only SHARD_COUNT.`);
    }
    ops.shards = count;
    if (rawIds !== undefined) {
      const ids = parseShardIds(rawIds, count);
      if (typeof ids === 'string') problems.push(`SHARD_IDS ${ids} (got "${rawIds}"; e.g. 0-3 or 0,2).`);
      else ops.shardIds = ids;
    }
  } else if (rawIds !== undefined) {
    problems.push('SHARD_IDS needs SHARD_COUNT, the number of shards over every host (e.g. SHARD_COUNT=8 with SHARD_IDS=0-3 on one host and 4-7 on the other).');
  }
}

/** `0-3` or `0,2` or `0-1,4`: sorted shard ids below `count`, or what is wrong. */
export function parseShardIds(raw: string, count: number): number[] | string {
  const ids = new Set<number>();
  for (const part of raw.split(',').map((p) => p.trim())) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!range) return 'must be shard ids and ranges separated by commas';
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from) return `has a range that runs backwards (${part})`;
    if (to >= count) return `names shard ${to}, but shard ids run from 0 to ${count - 1} with SHARD_COUNT=${count}`;
    for (let id = from; id <= to; id++) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * For entry points (`npm start`, `ask`, `deploy-commands`): the configuration, or undefined after
 * printing every problem to stderr with a pointer to `.env.example`.
 */
export function loadConfigOrReport(options: LoadOptions): Config | undefined {
  try {
    return loadConfig(options);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${error.message}\n\nCopy .env.example to .env and fill these in (each is explained in .env.example and the docs/ page it points to).`);
    return undefined;
  }
}

/** Small typed readers that record a problem instead of throwing, so all problems are reported together. */
class EnvReader {
  constructor(
    private readonly env: Env,
    private readonly problems: string[],
  ) {}

  string(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value ? value : undefined;
  }

  int(name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `of at least ${min}` : `from ${min} to ${max}`;
      this.problems.push(`${name} must be a whole number ${range} (got "${raw}").`);
      return fallback;
    }
    return value;
  }

  bool(name: string, fallback: boolean): boolean {
    const raw = this.string(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes', 'on'].includes(raw)) return true;
    if (['false', '0', 'no', 'off'].includes(raw)) return false;
    this.problems.push(`${name} must be true or false (got "${raw}").`);
    return fallback;
  }

  url(name: string): string | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    try {
      const url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
      return raw;
    } catch {
      this.problems.push(`${name} must be an http(s) URL (got "${raw}").`);
      return undefined;
    }
  }

  snowflake(name: string): string | undefined {
    const raw = this.string(name);
    if (raw !== undefined && !/^\d{17,20}$/.test(raw)) {
      this.problems.push(`${name} must be a Discord id (17-20 digits; got "${raw}").`);
      return undefined;
    }
    return raw;
  }
}
