/**
 * How a run reads in a thread: the thought as prose, the action as `tool(input)` in code, the
 * observation shortened in a code block, and the answer as its own message with its sources.
 * Pure functions: no discord.js, so they are tested on their own.
 */
import { escapeInline, hostLink, inertLinks, safeHttpUrl } from '../../agent/clean-text.js';
import { describeAction } from '../../agent/describe.js';
import type { Source } from '../../agent/tool.js';
import type { AgentEvent, AgentResult } from '../../agent/types.js';
import { formatMs } from '../../duration.js';
import { graphemeBoundary } from '../../agent/text-caps.js';
import { closeOpenFence } from './split-message.js';
import type { DisplayLevel } from '../../policy/index.js';
import { TEXT_CAPS } from '../../agent/text-caps.js';

const OBSERVATION_PREVIEW = 400;
const THOUGHT_PREVIEW = 600;

/** Keep text from closing our code block or inline code early. */
function safeInCode(text: string): string {
  return text.replace(/```/g, '`\u200b``');
}

/**
 * `text` as inline code on one line, at most `max` characters: its backticks become ˋ, so nothing in it
 * can close the code and be read as Markdown, and its `](` are parted (invisibly), so even text around
 * it that shifts Discord's pairing of backticks cannot turn it into a masked link.
 */
export function inlineCode(text: string, max = 180): string {
  const flat = inertLinks((text.length > max * 2 ? text.slice(0, max * 2) : text).replace(/\s+/g, ' ').replace(/`/g, 'ˋ'));
  return `\`${flat.length > max ? `${flat.slice(0, graphemeBoundary(flat, max - 1))}…` : flat}\``;
}

function shorten(text: string, max: number): string {
  const t = text.trim();
  return t.length > max ? `${t.slice(0, graphemeBoundary(t, max - 1))}…` : t;
}

/**
 * A tool's name as the step log prints it outside code. The model names the tool it calls, and may
 * name one that does not exist: only the characters tool names are made of are kept.
 */
function toolName(name: string): string {
  return name.slice(0, TEXT_CAPS.toolName).replace(/[^A-Za-z0-9_.-]/g, '_') || '_';
}

/**
 * The thread-log text for one event at a display level, or undefined when it is not shown. Everything
 * in it came from the model or a tool, and Discord pairs backticks across lines (a thought's stray one
 * can turn the next call's code back into Markdown), so no `](` is left side by side anywhere in it:
 * inside code the U+200B between them shows as nothing, outside it no masked link can form.
 */
export function formatStep(event: AgentEvent, level: DisplayLevel): string | undefined {
  const text = stepText(event, level);
  return text === undefined ? undefined : inertLinks(text);
}

function stepText(event: AgentEvent, level: DisplayLevel): string | undefined {
  if (level === 'answer') return undefined;
  switch (event.type) {
    case 'thought':
      // A fence the model left open (or the shortening cut) would swallow the rest of the log.
      return level === 'full' ? `💭 ${closeOpenFence(shorten(event.text, THOUGHT_PREVIEW))}` : undefined;
    case 'action':
      return `🔧 ${inlineCode(describeAction(event.tool, event.input))}`;
    case 'observation': {
      if (level !== 'full') return event.isError ? `⚠️ ${toolName(event.tool)} failed` : undefined;
      const label = event.isError ? '⚠️ error' : '↳ result';
      return `${label} (${formatMs(event.durationMs)})\n\`\`\`\n${safeInCode(shorten(event.output, OBSERVATION_PREVIEW)) || ' '}\n\`\`\``;
    }
    case 'format-reminder':
      return level === 'full' ? '↩️ the reply did not follow the format; reminded the model' : undefined;
    case 'protocol-fallback':
      return 'ℹ️ this model server does not accept tool calling; using the text protocol';
    default:
      return undefined;
  }
}

/**
 * The model's answer with its links shown for what they are: the model writes from what tools told it,
 * and a web page can ask it for a masked link whose label lies about where it goes. So
 * `[label](https://…)` reads `label (host)`, the host a link the bot made from the parsed URL; any other
 * `[label](target)` keeps its words and cannot become a link. Code blocks are left as they are.
 */
export function answerLinks(text: string): string {
  const masked = /\[([^\]\n]{1,300})\]\(<?(https?:\/\/[^\s)>]{1,2000})>?\)/g;
  return text
    .split(/(```[\s\S]*?(?:```|$))/)
    .map((part, i) => {
      if (i % 2 === 1) return part;
      // The model's words made inert piece by piece, and the bot's own host links put between them.
      let out = '';
      let at = 0;
      for (const m of part.matchAll(masked)) {
        const link = hostLink(m[2]);
        out += inertLinks(part.slice(at, m.index)) + (link ? `${inertLinks(m[1]!)} (${link})` : inertLinks(m[0]));
        at = m.index! + m[0].length;
      }
      return out + inertLinks(part.slice(at));
    })
    .join('');
}

/** The answer message: set apart, with sources and a one-line footer. */
export function formatAnswer(answer: string, result: Pick<AgentResult, 'steps' | 'usage' | 'durationMs' | 'reason' | 'cutOff'> & { model?: string }, sources: readonly Source[]): string {
  // A fence left open at the end of the answer would swallow the sources and the footer.
  const parts = [`### Answer\n${closeOpenFence(answerLinks(answer.trim()))}`];
  if (sources.length) {
    // Numbered as the run numbered them (citations.ts), so `[2]` in the answer is the second one here.
    parts.push(`**Sources:** ${sources.map((s, i) => `[${i + 1}] ${sourceLink(s)}`).join(' · ')}`);
  }
  const footer = [`${result.steps} step${result.steps === 1 ? '' : 's'}`, `${result.usage.totalTokens.toLocaleString('en-US')} tokens`, formatMs(result.durationMs)];
  if (result.model) footer.push(result.model.replace(/[`*_~|\\]/g, ''));
  if (result.reason === 'step-limit') footer.push('step limit reached: answered from what was found so far');
  if (result.reason === 'token-budget') footer.push('token budget reached: answered from what was found so far');
  if (result.cutOff === 'length') footer.push('⚠️ cut off: the reply reached its length limit (MODEL_MAX_TOKENS)');
  if (result.cutOff === 'content-filter') footer.push("⚠️ cut off by the model provider's content filter");
  parts.push(`-# ${footer.join(' · ')}`);
  return parts.join('\n\n');
}

/**
 * A source under the answer: its title as plain text (a tool wrote it: escaped, capped, never a link's
 * label), then a link the bot makes to its address, labelled with the address's own host. An address
 * that is not a plain http(s) URL is left out; the title stays.
 */
function sourceLink(source: Source): string {
  const link = hostLink(source.url);
  const title = escapeInline(source.title, TEXT_CAPS.sourceTitle);
  if (!link) return title || 'untitled';
  return !title || source.title === source.url || safeHttpUrl(source.title) === safeHttpUrl(source.url) ? link : `${title} (${link})`;
}

/** What the thread says when a run ends without an answer. */
export function formatFailure(result: Pick<AgentResult, 'reason' | 'error'>): string {
  if (result.reason === 'aborted') return '⏹️ Stopped. Nothing was lost: ask again or follow up whenever you like.';
  // A daily budget refused the next model call: its message says which budget and when it resets.
  if (result.reason === 'token-budget' && result.error) return result.error.message;
  const message = result.error?.message ?? 'The run ended without an answer.';
  return `❌ **The run failed.** ${message}\n-# The conversation so far is saved; send your message again to retry.`;
}
