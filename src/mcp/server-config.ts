/**
 * The operator's MCP servers file (`MCP_SERVERS_FILE`), in the format other MCP clients use:
 *
 *   { "mcpServers": { "files": { "command": "npx", "args": ["-y", "…"], "env": { "TOKEN": "${FILES_TOKEN}" } },
 *                     "search": { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${KEY}" } } } }
 *
 * `${VAR}` in `env` and `headers` is taken from the bot's environment, so secrets stay in `.env`.
 * Pure: `src/config.ts` reads the file and reports the problems with every other setting's.
 */

/** A server the bot starts and talks to over stdin/stdout. */
export interface StdioServerConfig {
  kind: 'stdio';
  name: string;
  command: string;
  args: string[];
  /** Only these variables (plus the SDK's safe defaults: PATH, HOME, …) reach the server's process. */
  env: Record<string, string>;
  cwd?: string;
}

/** A server reached over HTTP: Streamable HTTP, or the older SSE transport where that is all it has. */
export interface HttpServerConfig {
  kind: 'http';
  name: string;
  url: string;
  headers: Record<string, string>;
}

export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/** Server names become the prefix of tool names (`<server>__<tool>`): letters, digits, `-` and `_`. */
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

type Env = Record<string, string | undefined>;

/**
 * Read the file's text. Every problem names the file and the server, so the operator fixes them in one go.
 */
export function parseMcpServers(text: string, file: string, env: Env): { servers: McpServerConfig[]; problems: string[] } {
  const problems: string[] = [];
  const servers: McpServerConfig[] = [];
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { servers, problems: [`MCP_SERVERS_FILE ${file} is not valid JSON (${(error as Error).message}).`] };
  }
  const entries = isObject(json) ? json.mcpServers : undefined;
  if (!isObject(entries)) return { servers, problems: [`MCP_SERVERS_FILE ${file} must be an object with "mcpServers": { "<name>": { … } }.`] };
  for (const [name, raw] of Object.entries(entries)) {
    const at = `MCP_SERVERS_FILE ${file}, server "${name.slice(0, 40)}"`;
    const before = problems.length;
    if (!SERVER_NAME.test(name)) problems.push(`${at}: the name must be 1-32 letters, digits, - or _ (it starts the names of its tools).`);
    if (!isObject(raw)) {
      problems.push(`${at}: must be an object with "command" (a local server) or "url" (a remote one).`);
      continue;
    }
    const server = 'url' in raw ? httpServer(name, raw, at, env, problems) : stdioServer(name, raw, at, env, problems);
    if (server && problems.length === before) servers.push(server);
  }
  return { servers, problems };
}

function stdioServer(name: string, raw: Record<string, unknown>, at: string, env: Env, problems: string[]): StdioServerConfig | undefined {
  if (typeof raw.command !== 'string' || !raw.command.trim()) {
    problems.push(`${at}: needs "command" (the program that starts it) or "url" (a remote server).`);
    return undefined;
  }
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) problems.push(`${at}: "args" must be a list of strings.`);
  if (raw.cwd !== undefined && typeof raw.cwd !== 'string') problems.push(`${at}: "cwd" must be a directory path.`);
  return {
    kind: 'stdio',
    name,
    command: raw.command,
    args: Array.isArray(args) ? args.map(String) : [],
    env: stringMap(raw.env, 'env', at, env, problems),
    ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}),
  };
}

function httpServer(name: string, raw: Record<string, unknown>, at: string, env: Env, problems: string[]): HttpServerConfig | undefined {
  let url: URL | undefined;
  try {
    url = new URL(String(raw.url));
  } catch {
    /* reported below */
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    problems.push(`${at}: "url" must be an http(s) URL (got "${String(raw.url).slice(0, 60)}").`);
    return undefined;
  }
  return { kind: 'http', name, url: url.href, headers: stringMap(raw.headers, 'headers', at, env, problems) };
}

/** `env` or `headers`: strings, with `${VAR}` replaced from the bot's environment (a missing one is a problem). */
function stringMap(raw: unknown, field: string, at: string, env: Env, problems: string[]): Record<string, string> {
  if (raw === undefined) return {};
  if (!isObject(raw)) {
    problems.push(`${at}: "${field}" must be an object of strings.`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'string') {
      problems.push(`${at}: "${field}.${key}" must be a string.`);
      continue;
    }
    out[key] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, variable: string) => {
      const found = env[variable];
      if (found === undefined) problems.push(`${at}: "${field}.${key}" uses \${${variable}}, which is not set in the environment.`);
      return found ?? '';
    });
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
