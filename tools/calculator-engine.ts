/**
 * The calculator itself: a private mathjs instance with every way back into the parser, the instance's
 * configuration or the host closed off. Only the calculator worker imports this module, so whatever an
 * expression manages to do stays inside a thread that can be killed.
 *
 * Layers, each enough on its own for the payloads we know, together for the ones we don't:
 * 1. the functions below are replaced by ones that throw, so a call never reaches the real thing;
 * 2. every parsed expression is walked and refused if it names one of them (or a class, or a property
 *    that leads to a constructor), before it is compiled;
 * 3. each call gets a fresh scope, so variables never leak from one user's call to the next;
 * 4. `integrityProblem` checks after every call that nothing shared changed; the host replaces the
 *    worker if it did.
 */
import { createRequire } from 'node:module';
import type { MathNode } from 'mathjs';
import { expressionProblem } from './calculator-limits.js';
import { describeResult } from './calculator-format.js';

// The single-file build of the same mathjs version: it loads in ~0.1 s instead of ~1 s for the
// several hundred modules of the ESM build, which is what a fresh worker costs after a kill.
const mathjs = createRequire(import.meta.url)('mathjs/lib/browser/math.js') as typeof import('mathjs');

/**
 * Functions an expression may not call. mathjs's security page lists the first six; the rest re-enter
 * the parser (`simplify*`, `rationalize`, `resolve`, `symbolicEqual`, `leafCount`), change or expose the
 * shared instance (`config`, `typed`, `reviver`, `replacer`, `help`, the event emitter) or build objects
 * that do (`chain`, `parser`, `create`, `factory`).
 */
export const DISABLED_FUNCTIONS: readonly string[] = [
  'import', 'createUnit', 'evaluate', 'parse', 'simplify', 'derivative',
  'simplifyConstant', 'simplifyCore', 'rationalize', 'resolve', 'compile', 'parser', 'symbolicEqual',
  'leafCount', 'config', 'typed', 'reviver', 'replacer', 'help', 'chain', 'create', 'factory',
  'on', 'off', 'once', 'emit',
];

/** Property names that lead from a value to a constructor or prototype; mathjs refuses them too. */
const FORBIDDEN_PROPERTIES = new Set(['constructor', 'prototype', '__proto__', '__defineGetter__',
  '__defineSetter__', '__lookupGetter__', '__lookupSetter__', 'call', 'apply', 'bind']);

/** What the worker sends back for one expression. */
export type EngineReply = { ok: true; text: string } | { ok: false; message: string };

export interface CalculatorEngine {
  calculate(expression: string): EngineReply;
  /** Undefined while the shared instance is as it was built; otherwise what changed. */
  integrityProblem(): string | undefined;
}

/** Build the private instance. Takes ~100 ms, which is why the worker stays warm. */
export function createCalculatorEngine(): CalculatorEngine {
  const math = mathjs.create(mathjs.all ?? {}, { number: 'number', precision: 64 });
  // Kept before the overrides below: the engine itself still needs the real ones.
  const parse = math.parse;
  const readConfig = math.config;

  // mathjs builds most functions lazily from factories that ask the instance for `typed`, `config` and
  // friends; resolve them all now, while those are still the real ones.
  for (const key of Object.keys(math)) void (math as unknown as Record<string, unknown>)[key];

  const refuse = (name: string) => () => {
    throw new Error(`${name} is not available in this calculator.`);
  };
  // `typed` and the event emitter are what `import` itself uses: those are refused by the walk alone.
  const overridable = DISABLED_FUNCTIONS.filter((name) => !['typed', 'on', 'off', 'once', 'emit'].includes(name));
  math.import(Object.fromEntries(overridable.map((name) => [name, refuse(name)])), { override: true });

  // Classes (Unit, DenseMatrix, SymbolNode, Parser...) are not values anyone needs in a formula.
  const namespace = math as unknown as Record<string, unknown>;
  const forbiddenNames = new Set(DISABLED_FUNCTIONS);
  for (const key of Object.keys(namespace)) {
    if (/^[A-Z]/.test(key) && typeof namespace[key] === 'function') forbiddenNames.add(key);
  }

  const baseline = fingerprint();

  function fingerprint(): string {
    const units = Object.keys((namespace.Unit as { UNITS: object }).UNITS).length;
    const globals = Object.getOwnPropertyNames(globalThis).length;
    return JSON.stringify([readConfig({}), units, globals, Object.keys(Object.prototype), Object.keys(Array.prototype)]);
  }

  function forbiddenIn(node: MathNode): string | undefined {
    let found: string | undefined;
    node.traverse((child) => {
      if (found) return;
      const n = child as MathNode & { name?: string; value?: unknown; dimensions?: MathNode[] };
      if ((n.type === 'SymbolNode' || n.type === 'FunctionAssignmentNode') && forbiddenNames.has(n.name ?? '')) {
        found = n.name;
      } else if (n.type === 'IndexNode') {
        for (const dimension of n.dimensions ?? []) {
          const d = dimension as MathNode & { value?: unknown };
          if (d.type === 'ConstantNode' && typeof d.value === 'string' && FORBIDDEN_PROPERTIES.has(d.value)) {
            found = d.value;
          }
        }
      }
    });
    return found;
  }

  return {
    calculate(expression) {
      const problem = expressionProblem(expression);
      if (problem) return { ok: false, message: problem };
      try {
        const node = parse(expression);
        const forbidden = forbiddenIn(node);
        if (forbidden) return { ok: false, message: `"${forbidden}" is not available in this calculator.` };
        const value: unknown = node.compile().evaluate(new Map());
        return describeResult(value, math);
      } catch (error) {
        return { ok: false, message: explain(error) };
      }
    },
    integrityProblem() {
      return fingerprint() === baseline ? undefined : 'the calculator instance changed during a call';
    },
  };
}

/** mathjs messages are already clear ("Undefined symbol x"); only stack overflows need translating. */
function explain(error: unknown): string {
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return 'The expression is nested too deeply to calculate. Simplify it or split it into steps.';
  }
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 300 ? `${message.slice(0, 300)}…` : message;
}
