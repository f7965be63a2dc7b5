/**
 * `npm run mcp -- list`: connects to every server of MCP_SERVERS_FILE as the bot would, and prints each
 * server, its state and its tools (names and descriptions as the model sees them, and what the server
 * says of each), the tools it does not offer and why (a schema past the caps, names that collide), and
 * the protection stdio servers run under, so an operator can check the file before moderators see the
 * tools. Exit code 1 if a server is not ready.
 */
import { loadConfigOrReport } from '../config.js';
import { describeError } from '../errors.js';
import { chooseSandbox, McpServers } from '../mcp/index.js';
import { readCommandLine } from './command-line.js';

const USAGE = `usage: npm run mcp -- list [--wait SECONDS]
Connects to the servers of MCP_SERVERS_FILE and lists each one's state and tools.
--wait: how long to wait for slow servers (default 10).`;

async function main(): Promise<number> {
  const line = readCommandLine(
    { allowPositionals: true, options: { wait: { type: 'string', default: '10' }, help: { type: 'boolean', short: 'h', default: false } } },
    USAGE,
  );
  if ('exit' in line) return line.exit;
  const wait = Number(line.values.wait);
  if (line.positionals[0] !== 'list' || line.positionals.length > 1 || !(wait > 0 && wait <= 600)) {
    console.error(USAGE);
    return 2;
  }
  const config = loadConfigOrReport({ needDiscord: false, needModel: false });
  if (!config) return 2;
  if (config.mcp.servers.length === 0) {
    console.log(config.mcp.file ? `${config.mcp.file} names no servers.` : 'No MCP servers: set MCP_SERVERS_FILE (see .env.example).');
    return 0;
  }
  const quiet = { info: () => undefined, warn: () => undefined, debug: () => undefined };
  let sandbox;
  try {
    sandbox = config.mcp.servers.some((s) => s.kind === 'stdio') ? chooseSandbox({ setting: config.mcp.sandbox, user: config.mcp.sandboxUser, hidden: config.mcp.hiddenPaths }) : undefined;
  } catch (error) {
    console.error(describeError(error));
    return 2;
  }
  const servers = new McpServers(config.mcp.servers, { logger: quiet, callTimeoutMs: config.agent.toolTimeoutMs, readyWaitMs: wait * 1000, sandbox });
  try {
    await servers.start();
    const protection = servers.protection();
    if (protection) console.log(`Protection: ${protection}\n`);
    let allReady = true;
    for (const server of servers.status()) {
      allReady &&= server.state === 'ready';
      const how = server.transport ? ` over ${server.transport}` : '';
      console.log(`${server.name}: ${server.state}${how}${server.state !== 'ready' && server.error ? ` (${server.error})` : ''}, ${server.tools.length} tools`);
      for (const tool of server.tools) {
        console.log(`  ${tool.name} [${tool.notes.join(', ')}]`);
        console.log(`    ${tool.description.replace(/\n/g, '\n    ')}`);
      }
      for (const refused of server.refused) console.log(`  not offered: ${JSON.stringify(refused.tool)}: ${refused.reason}`);
    }
    console.log('\nEvery MCP tool is off in Discord until a moderator enables it (/tools enable).');
    return allReady ? 0 : 1;
  } finally {
    await servers.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`Unexpected failure: ${describeError(error)}`);
    process.exit(1);
  },
);
