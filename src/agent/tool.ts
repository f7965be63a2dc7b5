/**
 * The shape every tool in `tools/` has. The engine offers tools to the model (as JSON schemas in the
 * native protocol, as a described list in the text protocol), validates the arguments with `parameters`
 * and runs `run` with a context whose signal ends when the tool's time is up or the run is cancelled.
 */
import type { z } from 'zod';

/** A citation a tool can hand back so the answer can show where a fact came from. */
export interface Source {
  title: string;
  /** Where to read it; absent for a document with no address (a file added to the knowledge base). */
  url?: string;
}

/**
 * A file a tool hands back (a chart): shown to people (in the thread at its step and with the answer,
 * written to a file by the terminal runner), never to the model, which reads only `output`.
 */
export interface ToolAttachment {
  /** File name, e.g. `chart.png`. */
  name: string;
  /** MIME type, e.g. `image/png`. */
  contentType: string;
  data: Uint8Array;
  /** Alt text. */
  description?: string;
}

/** An image an outside (MCP) tool returned (base64 data): shown beside the call's step, and to a vision model. */
export interface ToolImage {
  mimeType: string;
  data: string;
}

/** What a tool returns: plain text for the model, plus optional sources, files and images. */
export interface ToolOutput {
  output: string;
  sources?: Source[];
  attachments?: ToolAttachment[];
  images?: ToolImage[];
}

/**
 * A person the run answers, with their own words in this turn (what they typed: not a message they
 * quoted, not a file, not a tool's output), so a tool that acts for a person can tell what they asked.
 */
export interface Asker {
  id: string;
  name: string;
  words: string;
}

/**
 * Something a tool did for one of the people the run answers, for them to see where the run is shown
 * (and to undo, by `ref`): a memory entry stored for them, say. The engine only passes it on.
 */
export interface ToolNotice {
  /** What happened, as the tool names it (`remembered`); the place that shows it words it. */
  kind: string;
  /** The id of the asker it concerns. */
  personId: string;
  /** What it is about (untrusted text: cleaned and escaped where it is shown). */
  text: string;
  /** What the person may undo it by (the entry's id); absent: nothing to undo. */
  ref?: string;
}

/**
 * Why a call must wait for a person's approval whatever the moderators' approval rules say, and who
 * may give it: a tool asks this of its own calls (`needsApproval`). No approver listed: the usual ones.
 */
export interface ToolApproval {
  reason: string;
  approvers?: ReadonlyArray<{ id: string; name: string }>;
}

/**
 * What an outside tool (an MCP server's) says of itself, exactly as the model and the policy read it:
 * cleaned and capped. Moderators read it in `/tools`; enabling the tool pins it, with its fingerprint.
 */
export interface ToolListing {
  /** The tool's name on its server. */
  tool: string;
  title?: string;
  /** What the model reads (the server's description, or its title when it has none). */
  description: string;
  /** The parameter schema offered to the model, as canonical JSON. */
  schema: string;
  /** The server's hints the policy reads (`readOnlyHint`, `destructiveHint`, …). */
  annotations: Record<string, boolean>;
}

/** Everything a tool may use from outside; injected so tests are deterministic. */
export interface ToolContext {
  /** Aborted when the tool's timeout passes or the run is cancelled. Long work must watch it. */
  signal: AbortSignal;
  /** The fetch to use for any HTTP; tests pass one that talks to a local server. */
  fetch: typeof fetch;
  /** The clock. */
  now: () => Date;
  /** The knowledge collection of the place the run is in (a Discord server's id, or the terminal's); none outside one. */
  collection?: string;
  /**
   * Whether the member the run answers may view a channel (Discord's View Channel there), so what was
   * said in a channel reaches only those who can read it. Absent: everything is visible (the terminal).
   */
  canViewChannel?: (channelId: string) => boolean | Promise<boolean>;
  /** Tells the people watching how far a long call has got (e.g. `3/5`); shown on the call's step line. */
  progress?: (text: string) => void;
  /**
   * The number the answer cites `source` by, the same all through the run (citations.ts): a tool that
   * numbers its results for the model asks here, so two searches never both have a `[1]`. Absent
   * outside a run: number from 1.
   */
  cite?: (source: Source) => number;
  /** The people the run answers and their own words this turn; absent: nobody in particular (the terminal). */
  askers?: readonly Asker[];
  /** Shows a person what a tool did for them (and how to undo it); absent: nowhere to show it. */
  notify?: (notice: ToolNotice) => Promise<void>;
  /** Set when a person approved this very call (an approval button), to their id. */
  approvedBy?: string;
}

export interface ToolDefinition<Args = any> {
  /** snake_case name the model calls. */
  name: string;
  /** Written for the model: when to use it and what it returns. */
  description: string;
  /** Validates the arguments; also the source of the JSON schema offered to the model. */
  parameters: z.ZodType<Args>;
  /**
   * A JSON Schema offered to the model instead of the one made from `parameters`, for tools whose
   * schema comes from elsewhere (an MCP server's `inputSchema`); `parameters` then only checks the shape.
   */
  inputSchema?: Record<string, unknown>;
  /**
   * Text protocol: the parameter that a plain `Action: tool: input` fills. Input that is a JSON
   * object is read as the full argument object instead. Empty input gives `{}`.
   */
  textParameter?: string;
  /** Other names models use for this tool (e.g. the ReAct paper's `search`); matched case-insensitively. */
  aliases?: string[];
  /** Text protocol: example inputs shown in the system prompt. */
  examples?: string[];
  /** Reaches beyond the bot's process (the web): off unless a moderator turns it on. */
  network?: boolean;
  /** Calls wait for a person's approval unless a moderator says otherwise (tools that may change things elsewhere). */
  askByDefault?: boolean;
  /** A fingerprint of what the model is told about the tool (MCP tools): enabling pins it, a change suspends the tool. */
  fingerprint?: string;
  /** Where the tool comes from and what it says about itself, for moderators (`/tools list`); none for built-in tools. */
  provenance?: { source: string; notes: string[]; listing?: ToolListing };
  /** Per-tool timeout in ms, overriding the run's default. */
  timeoutMs?: number;
  /**
   * Asked before a call runs, with its checked arguments: a reason (and who may approve) when this call
   * must wait for a person whatever the approval rules say, else undefined. Without a way to ask a
   * person (no `beforeTool`), such a call is not run and the model is told why.
   */
  needsApproval?(args: Args, ctx: Omit<ToolContext, 'signal'>): ToolApproval | undefined | Promise<ToolApproval | undefined>;
  run(args: Args, ctx: ToolContext): Promise<string | ToolOutput>;
}

/** Helper that keeps the argument type tied to the schema. */
export function defineTool<S extends z.ZodType>(
  tool: Omit<ToolDefinition<z.infer<S>>, 'parameters'> & { parameters: S },
): ToolDefinition<z.infer<S>> {
  return tool as ToolDefinition<z.infer<S>>;
}
