/** How the terminal runner shows a run: readable lines by default, one JSON object per event with --json. */
import readline from 'node:readline/promises';
import { describeAction } from '../agent/describe.js';
import type { ToolDecision } from '../agent/engine.js';
import type { AgentEvent } from '../agent/types.js';

const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

function indent(text: string, prefix = '   '): string {
  return text.split('\n').map((line) => prefix + line).join('\n');
}

/** Print one event for a person reading along. */
export function printEvent(event: AgentEvent): void {
  switch (event.type) {
    case 'run-start':
      console.log(dim(`protocol ${event.protocol}, up to ${event.maxSteps} steps, tools: ${event.tools.join(', ') || 'none'}`));
      break;
    case 'protocol-fallback':
      console.log(dim(`the server refused tool calling; switching to the ${event.to} protocol (${event.reason})`));
      break;
    case 'thought':
      console.log(`Thought: ${event.text}`);
      break;
    case 'action':
      console.log(`Action:  ${describeAction(event.tool, event.input)}`);
      break;
    case 'observation':
      console.log(`${event.isError ? 'Error' : 'Result'}:  ${dim(`(${Math.round(event.durationMs)} ms)`)}\n${indent(event.output)}`);
      break;
    case 'format-reminder':
      console.log(dim('the reply did not follow the format; reminded the model'));
      break;
    case 'answer':
      console.log(`\n${bold('Answer:')} ${event.text}`);
      for (const s of event.sources) console.log(dim(`  source: ${s.title} <${s.url}>`));
      if (event.forced) console.log(dim('  (the step limit was reached: answered from what was found so far)'));
      break;
    case 'error':
      console.error(`Error: ${event.message}`);
      break;
    case 'run-end':
      console.log(dim(`\n${event.reason} after ${event.steps} steps, ${event.usage.totalTokens} tokens, ${(event.durationMs / 1000).toFixed(1)} s`));
      break;
    case 'step-start':
      break;
  }
}

/** One JSON object per line: the event's own fields, `type` first. */
export function printJson(event: AgentEvent): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** Manual mode: show the action and wait. Enter runs it, typed text becomes the observation, q stops. */
export async function askInTerminal(call: { step: number; tool: string; input: unknown }): Promise<ToolDecision> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  try {
    const line = await rl.question(`[step ${call.step}] run ${describeAction(call.tool, call.input)}? Enter runs it, type an observation to use instead, q stops: `);
    if (line.trim().toLowerCase() === 'q') return { kind: 'stop' };
    return line.trim() ? { kind: 'observe', text: line } : { kind: 'run' };
  } finally {
    rl.close();
  }
}
