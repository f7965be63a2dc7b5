/**
 * A skill's inputs at run time: the member's words, read from the skill's own command options or from
 * `/skill run input:` (several separated by ` | `, in input order), then put into the instructions where
 * they name them (`{incident}`) as quoted data: cleaned of invisible characters, fenced in `<input>`
 * tags they cannot close, and never read as instructions (the prompt says so). An input the
 * instructions do not name is given after them, so nothing the member typed is lost.
 */
import { cleanText } from '../agent/clean-text.js';

/** What separates several inputs in `/skill run input:`. */
export const INPUT_SEPARATOR = ' | ';

/** The values for `names` from one `input:` text, or what is wrong with it. */
export function splitInputs(names: readonly string[], text: string | undefined): { ok: true; values: string[] } | { ok: false; problem: string } {
  const given = (text ?? '').trim();
  if (names.length === 0) return { ok: true, values: [] };
  const parts = names.length === 1 ? [given] : given.split(INPUT_SEPARATOR).map((p) => p.trim());
  const wanted = names.map((n) => `\`${n}\``).join(INPUT_SEPARATOR);
  if (parts.length !== names.length || parts.some((p) => !p)) {
    return { ok: false, problem: `This skill takes ${names.length === 1 ? 'one input' : `${names.length} inputs`}: give ${names.length === 1 ? 'it' : 'them'} in \`input:\` as ${wanted}${names.length > 1 ? ` (separated by \`${INPUT_SEPARATOR.trim()}\` with a space on each side)` : ''}. Nothing was run.` };
  }
  return { ok: true, values: parts };
}

/** One input's value as the model reads it: cleaned, and unable to close its fence. */
export function quotedInput(name: string, value: string): string {
  const clean = cleanText(value).replace(/<\/?\s*input\b[^>]*>/gi, '').trim();
  return `<input name="${name}">${clean}</input>`;
}

/** The instructions with each `{name}` replaced by its quoted value; inputs they do not name follow them. */
export function fillInstructions(instructions: string, names: readonly string[], values: readonly string[]): string {
  const valueOf = new Map(names.map((n, i) => [n, values[i] ?? '']));
  const named = new Set<string>();
  const filled = instructions.replace(/\{([a-z0-9_-]{1,32})\}/g, (whole, name: string) => {
    if (!valueOf.has(name)) return whole;
    named.add(name);
    return quotedInput(name, valueOf.get(name)!);
  });
  const rest = names.filter((n) => !named.has(n));
  return rest.length ? `${filled}\n\nInputs:\n${rest.map((n) => quotedInput(n, valueOf.get(n)!)).join('\n')}` : filled;
}

/** The member's message for a run: the command and the inputs as they typed them (`/incident-summary incident: db down`). */
export function runLine(name: string, names: readonly string[], values: readonly string[]): string {
  const parts = names.map((n, i) => `${n}: ${values[i] ?? ''}`);
  return [`/${name}`, ...parts].join(' ');
}
