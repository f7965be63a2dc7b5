/**
 * The classic text protocol for models and servers without tool calling:
 * `Thought: … / Action: tool: input / PAUSE`, then `Observation: …` from us, until `Answer: …`.
 * Generation stops at PAUSE / Observation, and anything the model writes after an Observation label
 * is cut off before it is stored: only the engine observes.
 */
import type { ToolDefinition } from './tool.js';
import type { NextStep, ObservationOut, ProtocolDriver, TextStream } from './protocol.js';
import { parseTextReply } from './text-parser.js';
import { TextStreamClassifier } from './text-stream.js';
import { contentText } from './content.js';
import type { ChatMessage, ModelDelta, ModelReply } from './types.js';
import { TEXT_CAPS } from './text-caps.js';

const STOP = ['PAUSE', '\nObservation'];
const SELF_OBSERVATION = /^\s*[-*>#\s]*[*_`]{0,3}\s*observation\b[^\n]*[:：][\s\S]*$/im;

const REMINDER =
  'Observation: your reply had no "Action:" line and no "Answer:" line. Reply with "Thought: …" and then either ' +
  '"Action: tool_name: input" followed by PAUSE, or "Answer: …" once you know the answer.';

export class TextProtocol implements ProtocolDriver {
  readonly name = 'text' as const;

  systemPrompt(tools: readonly ToolDefinition[], maxSteps: number, instructions?: string): string {
    const toolList = tools.length
      ? tools.map(describeTool).join('\n\n')
      : '(no tools are available here: answer from what you know)';
    const example = tools[0]?.examples?.[0] ?? 'input';
    return `You answer questions by reasoning step by step and using tools. You run in a loop of Thought, Action, PAUSE, Observation.
Use "Thought:" to describe your reasoning about the question.
Use "Action:" to run one of the tools listed below, as "Action: tool_name: input", then write PAUSE and stop.
"Observation:" will be the result of that action. It is written for you: never write an Observation yourself.
When you know the answer, write "Answer:" followed by the answer. Cite sources that tools gave you.
You have at most ${maxSteps} steps; each Observation ends with a note saying which step comes next.

Tools:
${toolList}

Example:
Thought: I should use ${tools[0]?.name ?? 'a tool'} for this.
Action: ${tools[0]?.name ?? 'tool_name'}: ${example}
PAUSE

You will then be called again with:
Observation: (the tool's result)

and you continue with another Thought and Action, or with:
Answer: (the answer, in full sentences)
${instructions ? `\n${instructions}` : ''}`.trim();
  }

  requestFields() {
    return { stop: STOP };
  }

  prepareHistory(messages: readonly ChatMessage[]): ChatMessage[] {
    return toTextTranscript(messages);
  }

  interpret(reply: ModelReply, step: number, knownTools: ReadonlySet<string>): NextStep {
    const content = reply.content.replace(SELF_OBSERVATION, '').trim();
    const parsed = parseTextReply(content, knownTools);
    const thought = parsed.thought ?? reply.reasoning;
    if (parsed.action) {
      const call = { callId: `text_${step}`, tool: parsed.action.tool, raw: { kind: 'text' as const, text: parsed.action.input } };
      return { kind: 'tools', thought, calls: [call], assistant: { role: 'assistant', content: `${content}\nPAUSE` } };
    }
    const assistant: ChatMessage = { role: 'assistant', content };
    if (parsed.answer !== undefined) return { kind: 'answer', thought, answer: parsed.answer, assistant };
    if (parsed.unknownAction !== undefined) {
      // The model did try to act: say what could not be read, not that there was no Action line.
      const note = `Observation: "Action: ${parsed.unknownAction.slice(0, TEXT_CAPS.echo)}" is not a call I can run. Write "Action: tool_name: input" with one of the tools listed, then PAUSE; or "Answer: …" once you know the answer.`;
      return { kind: 'remind', thought, reminder: { role: 'user', content: note }, assistant };
    }
    return { kind: 'remind', thought, reminder: { role: 'user', content: REMINDER }, assistant, prose: parsed.thought };
  }

  observationMessages(results: ObservationOut[], note: string): ChatMessage[] {
    return results.map((r) => ({ role: 'user' as const, content: `Observation: ${r.output}\n\n${note}` }));
  }

  reminder(note: string) {
    return { role: 'user' as const, content: `Observation: ${note}` };
  }

  /** Labels decide: Thought text is thought, Answer text is answer, actions are held back; reasoning is thought. */
  textStream(final: boolean): TextStream {
    // The forced last reply is the answer even where the model left out the label.
    const classifier = new TextStreamClassifier(final ? 'answer' : 'thought');
    return {
      push: (delta: ModelDelta) => (delta.kind === 'reasoning' ? [{ kind: 'thought', text: delta.text }] : classifier.push(delta.text)),
      end: () => classifier.end(),
    };
  }

  finalNudge(why: string): ChatMessage {
    return {
      role: 'user',
      content: `Observation: ${why} Do not use any more tools. Write "Answer:" followed by your best answer from what you have found, and say if it is incomplete.`,
    };
  }

  finalAnswer(reply: ModelReply, knownTools: ReadonlySet<string>): string | undefined {
    const content = reply.content.replace(SELF_OBSERVATION, '').trim();
    const parsed = parseTextReply(content, knownTools);
    // The last chance: an answer label if there is one, else whatever prose the model wrote.
    return parsed.answer ?? (parsed.action ? undefined : parsed.thought) ?? undefined;
  }
}

function describeTool(tool: ToolDefinition): string {
  const examples = (tool.examples ?? []).map((e) => `  e.g. Action: ${tool.name}: ${e}`).join('\n');
  return `${tool.name}: ${tool.description}${examples ? `\n${examples}` : ''}`;
}

/**
 * Native-protocol history (assistant tool_calls + tool messages) rewritten as the text protocol's
 * Action / Observation turns, so a thread can move between protocols without losing its memory.
 * Messages with parts become plain text, each image a note: the text protocol is for servers that
 * take text only.
 */
export function toTextTranscript(messages: readonly ChatMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const m of messages) {
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const lines = m.content ? [`Thought: ${m.content}`] : [];
      for (const call of m.tool_calls) lines.push(`Action: ${call.function.name}: ${call.function.arguments}`);
      out.push({ role: 'assistant', content: `${lines.join('\n')}\nPAUSE` });
    } else if (m.role === 'tool') {
      out.push({ role: 'user', content: `Observation: ${m.content}` });
    } else if (m.role === 'user' && typeof m.content !== 'string') {
      out.push({ ...m, content: contentText(m.content) });
    } else out.push(m);
  }
  return out;
}
