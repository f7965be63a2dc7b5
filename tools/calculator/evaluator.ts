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
import type { ConfigOptions, MathJsInstance, MathNode } from 'mathjs';
// The single-file build of the same mathjs version: it loads in ~0.1 s instead of ~1 s for the
// several hundred modules of the ESM build, which is what a fresh worker costs after a kill.
import mathjs from 'mathjs/lib/browser/math.js';
import { expressionProblem } from './limits.js';
import { describeResult, type EvaluatorReply } from './format.js';
import { nonFiniteReason } from './non-finite.js';
import { TEXT_CAPS } from '../../src/agent/text-caps.js';

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

/** The only capitalised names in the namespace that are plain numbers rather than classes. */
const UPPER_CASE_CONSTANTS = new Set(['E', 'PI', 'LN2', 'LN10', 'LOG2E', 'LOG10E', 'SQRT1_2', 'SQRT2', 'Infinity', 'NaN']);

/** Property names that lead from a value to a constructor or prototype; mathjs refuses them too. */
const FORBIDDEN_PROPERTIES = new Set(['constructor', 'prototype', '__proto__', '__defineGetter__',
  '__defineSetter__', '__lookupGetter__', '__lookupSetter__', 'call', 'apply', 'bind']);

export interface CalculatorEvaluator {
  calculate(expression: string): EvaluatorReply;
  /** Undefined while the shared instance is as it was built; otherwise what changed. */
  integrityProblem(): string | undefined;
}

/** Build the private instance (tens of milliseconds; loading mathjs costs more, hence the warm worker). */
export function createCalculatorEvaluator(): CalculatorEvaluator {
  // The bundle's `create` is already bound to every factory; it takes just the configuration.
  const math = (mathjs.create as unknown as (config: ConfigOptions) => MathJsInstance)({ number: 'number', precision: 64 });
  const namespace = math as unknown as Record<string, unknown>;
  // Kept before the overrides below: mathjs itself still needs the real ones.
  const parse = math.parse;
  const realConfig = math.config as unknown as ((options?: ConfigOptions) => ConfigOptions) & Record<string, unknown>;

  // mathjs builds functions lazily, handing each factory the instance's current `config`, `typed` and
  // event emitter. So those three stay usable by mathjs: `config` becomes read-only (same settings,
  // calling it to change them throws), while `typed` and the emitter are left in place and refused in
  // expressions by the walk below alone. Nothing else mathjs builds depends on the functions replaced.
  const refuse = (name: string) => () => {
    throw new Error(`${name} is not available in this calculator.`);
  };
  const readOnlyConfig = (options?: ConfigOptions) => {
    if (options !== undefined) refuse('config')();
    return realConfig();
  };
  for (const key of Object.keys(realConfig)) {
    Object.defineProperty(readOnlyConfig, key, { get: () => realConfig[key], enumerable: true });
  }
  // Set directly rather than through `math.import`, which would first build the real (and heavy)
  // simplify, rationalize... only to replace them; frozen so nothing can set them back. The parser
  // looks names up in `mathWithTransform`, mathjs's own code in `math`: both get the replacement.
  const withTransform = (math as unknown as { expression: { mathWithTransform: Record<string, unknown> } }).expression.mathWithTransform;
  const replace = (name: string, value: unknown) => {
    for (const target of [namespace, withTransform]) {
      Object.defineProperty(target, name, { value, writable: false, configurable: false, enumerable: true });
    }
  };
  for (const name of DISABLED_FUNCTIONS) {
    if (!['config', 'typed', 'on', 'off', 'once', 'emit'].includes(name)) replace(name, refuse(name));
  }
  replace('config', readOnlyConfig);

  // Classes (Unit, DenseMatrix, SymbolNode, Parser...) are not values anyone needs in a formula. Told
  // apart by name rather than `typeof`, which would build every class now (~0.2 s per worker start).
  const forbiddenNames = new Set(DISABLED_FUNCTIONS);
  for (const key of Object.keys(namespace)) {
    if (/^[A-Z]/.test(key) && !UPPER_CASE_CONSTANTS.has(key)) forbiddenNames.add(key);
  }

  const baseline = fingerprint();

  function fingerprint(): string {
    const units = Object.keys((namespace.Unit as { UNITS: object }).UNITS).length;
    const globals = Object.getOwnPropertyNames(globalThis).length;
    // realConfig() with no argument only reads; with one it would emit a change event.
    return JSON.stringify([realConfig(), units, globals, Object.keys(Object.prototype), Object.keys(Array.prototype)]);
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
        const scope = new Map<string, unknown>();
        const value: unknown = node.compile().evaluate(scope);
        // A result set holds one value per statement shown (not ended with ";"), in order.
        const shown = node.type === 'BlockNode'
          ? (node as unknown as { blocks: Array<{ node: MathNode; visible: boolean }> }).blocks.filter((b) => b.visible).map((b) => b.node)
          : [node];
        return describeResult(value, math, (index, item) => (shown[index] ? nonFiniteReason(expression, shown[index], item, scope, math) : undefined));
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
  return message.length > TEXT_CAPS.libraryMessage ? `${message.slice(0, TEXT_CAPS.libraryMessage)}…` : message;
}
