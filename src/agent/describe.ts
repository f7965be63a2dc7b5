/**
 * One-line descriptions of steps for people (terminal and Discord): `calculate(2 + 2)` reads better
 * than `calculate({"expression":"2 + 2"})`.
 */

/** `tool(input)`, showing a single string argument bare and anything else as compact JSON. */
export function describeAction(tool: string, input: unknown): string {
  return `${tool}(${describeInput(input)})`;
}

export function describeInput(input: unknown): string {
  if (typeof input === 'string') return input;
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const values = Object.values(input as Record<string, unknown>);
    if (values.length === 0) return '';
    if (values.length === 1 && typeof values[0] === 'string') return values[0];
  }
  return JSON.stringify(input) ?? '';
}
