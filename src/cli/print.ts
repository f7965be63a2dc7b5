/** How the terminal runner shows a run: readable lines by default, one JSON object per event with --json. */
import readline from 'node:readline/promises';
import { boundedJson, describeAction } from '../agent/describe.js';
import type { ToolDecision } from '../agent/engine.js';
import type { AgentEvent } from '../agent/types.js';

const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

function indent(text: string, prefix = '   '): string {
  return text.split('\n').map((line) => prefix + line).join('\n');
}

/**
 * Prints a run for a person reading along. Text is printed as the model writes it (thoughts dimmed);
 * the events that settle a step (thought, answer) then only finish the line, so nothing is printed twice.
 */
export class TerminalPrinter {
  /** Steps whose text was streamed, and of what kind the last piece was. */
  private readonly streamed = new Map<number, 'thought' | 'answer'>();
  private lineOpen = false;

  /** Show one event; `written`: the files its attachments were saved to (a chart), named under the result. */
  print(event: AgentEvent, written: readonly string[] = []): void {
    if (event.type !== 'text-delta') this.endLine();
    switch (event.type) {
      case 'text-delta':
        return this.delta(event.step, event.kind, event.text, event.provisional === true);
      case 'run-start':
        return console.log(dim(`protocol ${event.protocol}, up to ${event.maxSteps} steps, tools: ${event.tools.join(', ') || 'none'}`));
      case 'protocol-fallback':
        return console.log(dim(`the server refused tool calling; switching to the ${event.to} protocol (${event.reason})`));
      case 'thought':
        if (!this.streamed.has(event.step)) console.log(`Thought: ${event.text}`);
        return;
      case 'action':
        return console.log(`Action:  ${describeAction(event.tool, event.input)}`);
      case 'observation':
        console.log(`${event.isError ? 'Error' : 'Result'}:  ${dim(`(${Math.round(event.durationMs)} ms)`)}\n${indent(event.output)}`);
        for (const file of written) console.log(`Chart:   written to ${file}`);
        return;
      case 'format-reminder':
        return console.log(dim('the reply did not follow the format; reminded the model'));
      case 'answer':
        if (![...this.streamed.values()].includes('answer')) console.log(`\n${bold('Answer:')} ${event.text}`);
        event.sources.forEach((source, i) => console.log(dim(`  [${i + 1}] ${source.title}${source.url ? ` <${source.url}>` : ''}`)));
        if (event.forced) console.log(dim('  (a limit was reached: answered from what was found so far)'));
        if (event.cutOff) console.log(dim(`  (the answer is incomplete: ${event.cutOff === 'length' ? 'it reached MODEL_MAX_TOKENS' : "the provider's content filter stopped it"})`));
        return;
      case 'error':
        return console.error(`Error: ${event.message}`);
      case 'run-end':
        return console.log(dim(`\n${event.reason} after ${event.steps} steps, ${event.usage.totalTokens} tokens, ${(event.durationMs / 1000).toFixed(1)} s`));
      case 'step-start':
        return;
    }
  }

  private delta(step: number, kind: 'thought' | 'answer', text: string, provisional: boolean): void {
    if (this.streamed.get(step) !== kind) {
      this.endLine();
      // Provisional answer text carries no label while it streams: until the reply ends it may still
      // turn out to be the thought before a tool call (native protocol).
      process.stdout.write(kind === 'thought' ? 'Thought: ' : provisional ? '\n' : `\n${bold('Answer:')} `);
      this.streamed.set(step, kind);
    }
    process.stdout.write(kind === 'thought' ? dim(text) : text);
    this.lineOpen = true;
  }

  private endLine(): void {
    if (this.lineOpen) process.stdout.write('\n');
    this.lineOpen = false;
  }
}

/** One JSON object per line: the event's own fields, `type` first (attachments described, not their bytes). */
export function printJson(event: AgentEvent | Record<string, unknown>): void {
  let line: string;
  try {
    line = JSON.stringify(event);
  } catch {
    // An action's input nested past what JSON.stringify can write (a model's 5,000 levels): described instead.
    line = JSON.stringify({ ...event, input: boundedJson((event as { input?: unknown }).input, { maxChars: 100_000 }) });
  }
  process.stdout.write(`${line}\n`);
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
