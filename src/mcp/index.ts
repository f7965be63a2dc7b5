/**
 * Tools from MCP servers: the operator's servers file, the connections, and their tools as engine
 * tools. The policy governs them like every other tool (off until enabled, pinned when enabled).
 */
export { parseMcpServers, type McpServerConfig, type StdioServerConfig, type HttpServerConfig } from './server-config.js';
export { McpServers, type McpServersOptions, type ServerStatus } from './mcp-servers.js';
export type { McpLogger, ServerState } from './server-connection.js';
export { modelToolName, modelDescription, toolFingerprint, TOOL_NAME_PATTERN, DESCRIPTION_MAX_CHARS } from './tool-shape.js';
