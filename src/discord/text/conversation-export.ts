/**
 * A thread's conversation as a record people can keep (`/export`): each exchange with who asked and
 * when, the run's steps (thoughts, tool calls, results) and its answer, and what it cost in tokens.
 * Built from the stored conversation alone: the steps are its assistant tool calls and tool results
 * (native protocol) or its Thought/Action/Observation turns (text protocol). Images are named, not
 * embedded. Pure functions: no Discord here.
 */
import { contentText } from '../../agent/content.js';
import type { Usage } from '../../agent/types.js';
import type { Conversation, StoredMessage } from '../../state/index.js';

export type ExportStep =
  | { kind: 'question'; at: string; speaker: string; speakerId?: string; text: string }
  | { kind: 'thought'; at: string; text: string }
  | { kind: 'action'; at: string; tool: string; input: unknown; callId?: string }
  | { kind: 'observation'; at: string; tool?: string; text: string }
  | { kind: 'note'; at: string; text: string }
  | { kind: 'answer'; at: string; speaker: string; text: string };

export interface ExportExchange {
  at: string;
  usage?: Usage;
  steps: ExportStep[];
}

export interface ConversationExport {
  thread: { id: string; name: string; guildId?: string };
  exportedAt: string;
  exportedBy: string;
  usage: Usage;
  exchanges: ExportExchange[];
}

const IMAGE = '[image]';

/** The export of a conversation: what both the JSON and the Markdown are made from. */
export function buildExport(conversation: Conversation, meta: { threadName: string; guildId?: string; exportedBy: string; botName: string; now: Date }): ConversationExport {
  const batches = conversation.batches?.length ? conversation.batches : [{ at: conversation.createdAt ?? 0, messages: conversation.messages.length }];
  const exchanges: ExportExchange[] = [];
  let offset = 0;
  for (const batch of batches) {
    const messages = conversation.messages.slice(offset, offset + batch.messages);
    offset += batch.messages;
    exchanges.push({ at: iso(batch.at), ...(batch.usage ? { usage: batch.usage } : {}), steps: stepsOf(messages, meta.botName) });
  }
  return {
    thread: { id: conversation.threadId, name: meta.threadName, ...(meta.guildId ? { guildId: meta.guildId } : {}) },
    exportedAt: meta.now.toISOString(),
    exportedBy: meta.exportedBy,
    usage: conversation.usage,
    exchanges,
  };
}

function stepsOf(messages: readonly StoredMessage[], botName: string): ExportStep[] {
  const steps: ExportStep[] = [];
  const toolNames = new Map<string, string>();
  let lastAnswer = -1;
  messages.forEach((m, i) => {
    if (m.role === 'assistant' && !m.tool_calls?.length && !isTextAction(m.content)) lastAnswer = i;
  });
  messages.forEach((m, i) => {
    const at = iso(m.at);
    switch (m.role) {
      case 'system':
        return;
      case 'user': {
        const text = contentText(m.content, IMAGE);
        if (m.author) steps.push({ kind: 'question', at, speaker: m.author.name, speakerId: m.author.id, text });
        else if (/^Observation:/.test(text)) steps.push({ kind: 'observation', at, text: text.replace(/^Observation:\s*/, '') });
        else steps.push({ kind: 'note', at, text });
        return;
      }
      case 'assistant': {
        const content = m.content ?? '';
        if (m.tool_calls?.length) {
          if (content.trim()) steps.push({ kind: 'thought', at, text: content.trim() });
          for (const call of m.tool_calls) {
            toolNames.set(call.id, call.function.name);
            steps.push({ kind: 'action', at, tool: call.function.name, input: parseInput(call.function.arguments), callId: call.id });
          }
        } else if (isTextAction(content)) {
          steps.push(...textProtocolSteps(content, at));
        } else if (i === lastAnswer) {
          steps.push({ kind: 'answer', at, speaker: botName, text: content.trim() });
        } else if (content.trim()) {
          steps.push({ kind: 'thought', at, text: content.trim() });
        }
        return;
      }
      case 'tool':
        steps.push({ kind: 'observation', at, tool: toolNames.get(m.tool_call_id), text: m.content });
    }
  });
  return steps;
}

/** A text-protocol step as stored: "Thought: …", "Action: tool: input", then PAUSE. */
function isTextAction(content: string | null): boolean {
  return !!content && /\nPAUSE\s*$/.test(content) && /^Action:/m.test(content);
}

function textProtocolSteps(content: string, at: string): ExportStep[] {
  const body = content.replace(/\nPAUSE\s*$/, '');
  const action = /^Action:\s*([^:\n]+):\s*(.*)$/m.exec(body);
  const thought = body.slice(0, action?.index ?? body.length).replace(/^Thought:\s*/, '').trim();
  const steps: ExportStep[] = thought ? [{ kind: 'thought', at, text: thought }] : [];
  if (action) steps.push({ kind: 'action', at, tool: action[1]!.trim(), input: action[2]!.trim() });
  return steps;
}

function parseInput(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args);
    // Arguments nested past what JSON.stringify can write back (a model's 5,000 levels) stay as their text.
    JSON.stringify(value);
    return value;
  } catch {
    return args;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The export as a member may see it at a channel's display level: `full` keeps every step; `actions`
 * keeps questions, tool calls and answers (thoughts and tool results hidden, as in the thread);
 * `answer` keeps questions and answers only.
 */
export function atDisplayLevel(data: ConversationExport, level: 'full' | 'actions' | 'answer'): ConversationExport {
  if (level === 'full') return data;
  const shown: ReadonlySet<ExportStep['kind']> = level === 'actions' ? new Set(['question', 'action', 'note', 'answer']) : new Set(['question', 'note', 'answer']);
  return { ...data, exchanges: data.exchanges.map((e) => ({ ...e, steps: e.steps.filter((step) => shown.has(step.kind)) })) };
}

/** The export as JSON text. */
export function exportJson(data: ConversationExport): string {
  return `${JSON.stringify(data, null, 2)}\n`;
}

/** The export as Markdown: a heading, then one section per exchange (each rendered by `exchangeMarkdown`). */
export function exportMarkdown(data: ConversationExport): string {
  const u = data.usage;
  const head = [
    `# ${data.thread.name}`,
    `Exported ${data.exportedAt} by ${data.exportedBy} · ${data.exchanges.length} exchange${data.exchanges.length === 1 ? '' : 's'} · ${u.totalTokens.toLocaleString('en-US')} tokens (${u.promptTokens.toLocaleString('en-US')} prompt, ${u.completionTokens.toLocaleString('en-US')} completion)`,
  ].join('\n\n');
  return `${[head, ...data.exchanges.map((e, i) => exchangeMarkdown(e, i + 1))].join('\n\n')}\n`;
}

/** One exchange in Markdown. */
export function exchangeMarkdown(exchange: ExportExchange, n: number): string {
  const cost = exchange.usage ? ` · ${exchange.usage.totalTokens.toLocaleString('en-US')} tokens` : '';
  const lines = [`## ${n} · ${exchange.at}${cost}`];
  for (const step of exchange.steps) {
    switch (step.kind) {
      case 'question':
        lines.push(`**${step.speaker}** (${step.at}):\n\n${step.text}`);
        break;
      case 'thought':
        lines.push(`💭 ${step.text}`);
        break;
      case 'action':
        lines.push(`🔧 \`${step.tool}\` ${fenced(typeof step.input === 'string' ? step.input : JSON.stringify(step.input))}`);
        break;
      case 'observation':
        lines.push(`↳ result${step.tool ? ` of \`${step.tool}\`` : ''}:\n${fenced(step.text)}`);
        break;
      case 'note':
        lines.push(`ℹ️ ${step.text}`);
        break;
      case 'answer':
        lines.push(`**${step.speaker}** answered (${step.at}):\n\n${step.text}`);
    }
  }
  return lines.join('\n\n');
}

/** Text in a code block its own backticks cannot close: the fence is longer than any run inside. */
function fenced(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `\n${fence}\n${text}\n${fence}`;
}
