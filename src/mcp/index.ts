/**
 * Tools from MCP servers: the operator's servers file, the connections, and their tools as engine
 * tools. The policy governs them like every other tool (off until enabled, pinned when enabled).
 */
export { parseMcpServers, type McpServerConfig, type StdioServerConfig, type HttpServerConfig } from './server-config.js';
export { codeName, McpServers, type McpServersOptions, type RefusedTool, type ServerStatus } from './mcp-servers.js';
export { SERVER_STATES, type McpLogger, type ServerState } from './server-connection.js';
export { modelToolName, TOOL_NAME_PATTERN } from './tool-shape.js';
export { listingFingerprint, presentTool, type ListedTool } from './tool-listing.js';
export { chooseSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
