/**
 * The engine's index of its tools, built once when the engine is made: the names and aliases a model
 * may use for each tool (normalized for the text parser), and each tool's JSON schema for the native
 * protocol. Runs share it; nothing about a tool is worked out again per run or per step.
 */
import type { ToolDefinition } from './tool.js';
import { parametersSchema } from './tool-arguments.js';
import { normalizeToolName } from './text-parser.js';
import type { ToolSchema } from './types.js';

export class ToolIndex {
  private readonly byName = new Map<string, ToolDefinition>();
  private readonly schemas = new Map<ToolDefinition, ToolSchema>();
  /** Every name and alias the tools answer to (normalized), for the text parser. */
  readonly knownNames: ReadonlySet<string>;
  /** Every tool's name: the allowed set when no policy narrows it. */
  readonly allNames: ReadonlySet<string>;

  constructor(readonly tools: readonly ToolDefinition[]) {
    // Aliases first, so a tool's own name wins over another tool's alias.
    for (const tool of tools) for (const alias of tool.aliases ?? []) this.byName.set(normalizeToolName(alias), tool);
    for (const tool of tools) {
      this.byName.set(tool.name, tool);
      this.schemas.set(tool, {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: parametersSchema(tool) },
      });
    }
    this.knownNames = new Set(this.byName.keys());
    this.allNames = new Set(tools.map((t) => t.name));
  }

  /** The tool a model-written name refers to, by exact name or alias. */
  find(name: string): ToolDefinition | undefined {
    return this.byName.get(name) ?? this.byName.get(normalizeToolName(name));
  }

  /** The tool as offered in the native protocol's `tools` array. */
  schema(tool: ToolDefinition): ToolSchema {
    return this.schemas.get(tool) ?? { type: 'function', function: { name: tool.name, description: tool.description, parameters: parametersSchema(tool) } };
  }
}
