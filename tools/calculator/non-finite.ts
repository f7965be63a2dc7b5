/**
 * Why a result is Infinity, -Infinity or NaN, in words. A bare "Infinity" tells a model nothing, and
 * small models then give it as the answer; "division by zero" or "overflow past ~1.8e308" lets it
 * explain or change course. The cause is found by evaluating the expression's parts again (the
 * expression was already checked and evaluated once, in the same scope) and following the first part
 * that is not finite down to the operation that made it so.
 */
import type { MathJsInstance, MathNode } from 'mathjs';

type MathTools = Pick<MathJsInstance, 'isBigNumber'>;

/** The reasons, short enough to sit in brackets after the value. */
export const NON_FINITE_REASONS = {
  divisionByZero: 'division by zero: a number divided by 0 has no finite value',
  overflow: 'overflow: the size passes about 1.8e308, the largest number the calculator can hold',
  logOfZero: 'log of zero: the logarithm of 0 is minus infinity, not a number',
  undefinedForm: 'undefined form, such as 0/0 or Infinity - Infinity: the result is not a number',
  givenInfinity: 'the expression itself uses Infinity or NaN',
} as const;

const LOGARITHMS = new Set(['log', 'log10', 'log2', 'ln']);
// mathjs parses `Infinity` and `NaN` into constants, as it does a literal too large for a number
// (`1e309`); only the expression's text tells the two apart.
const WRITES_NON_FINITE = /\b(?:Infinity|NaN)\b/;

interface Node {
  type: string;
  fn?: string | { name?: string };
  name?: string;
  args?: MathNode[];
  value?: unknown;
  forEach(callback: (child: MathNode) => void): void;
}

/** True for a number or BigNumber that is Infinity, -Infinity or NaN. */
export function isNonFinite(value: unknown, math: MathTools): boolean {
  if (typeof value === 'number') return !Number.isFinite(value);
  return math.isBigNumber(value) && !value.isFinite();
}

/**
 * Why `value`, the result of `node` (parsed from `expression`) in `scope`, is not finite; undefined
 * when it is finite.
 */
export function nonFiniteReason(expression: string, node: MathNode, value: unknown, scope: Map<string, unknown>, math: MathTools): string | undefined {
  if (!isNonFinite(value, math)) return undefined;
  const evaluate = (part: MathNode): unknown => {
    try {
      return part.compile().evaluate(scope);
    } catch {
      return undefined; // a part that cannot stand alone (a function's parameter) says nothing
    }
  };
  const isZero = (v: unknown) => v === 0 || (math.isBigNumber(v) && v.isZero());
  const isNegative = (v: unknown) => (typeof v === 'number' && v < 0) || (math.isBigNumber(v) && v.isNegative());
  const writesNonFinite = WRITES_NON_FINITE.test(expression);
  // Infinity or NaN as the person wrote it: an input, not a cause to look behind.
  const written = (part: MathNode) => writesNonFinite && part.type === 'ConstantNode' && isNonFinite((part as unknown as Node).value, math);

  let current = node as unknown as Node;
  let result = value;
  for (;;) {
    if (current.type === 'AssignmentNode') {
      current = (current as unknown as { value: Node }).value;
      continue;
    }
    const children: MathNode[] = [];
    if (current.args) children.push(...current.args); // a function's arguments, not its name
    else current.forEach((child) => children.push(child));
    const values = children.map(evaluate);
    const culprit = children.findIndex((child, i) => !written(child) && isNonFinite(values[i], math));
    if (culprit === -1) return reasonAt(current, result, children, values);
    current = children[culprit] as unknown as Node;
    result = values[culprit];
  }

  function reasonAt(at: Node, result: unknown, children: MathNode[], values: unknown[]): string {
    const name = typeof at.fn === 'string' ? at.fn : at.fn?.name ?? at.name;
    const [first, second] = values;
    if (at.type === 'SymbolNode') return `the variable ${at.name} holds a value that is not finite`;
    if (at.type === 'ConstantNode') return writesNonFinite ? NON_FINITE_REASONS.givenInfinity : NON_FINITE_REASONS.overflow;
    if (name === 'divide' && values.length === 2 && isZero(second)) {
      return isZero(first) ? NON_FINITE_REASONS.undefinedForm : NON_FINITE_REASONS.divisionByZero;
    }
    if (name === 'pow' && isZero(first) && isNegative(second)) return NON_FINITE_REASONS.divisionByZero;
    if (name !== undefined && LOGARITHMS.has(name) && isZero(first)) return NON_FINITE_REASONS.logOfZero;
    if (name === 'log1p' && first === -1) return NON_FINITE_REASONS.logOfZero;
    const isNaN = typeof result === 'number' ? Number.isNaN(result) : math.isBigNumber(result) && result.isNaN();
    if (isNaN) return NON_FINITE_REASONS.undefinedForm;
    if (children.some(written)) return NON_FINITE_REASONS.givenInfinity;
    return NON_FINITE_REASONS.overflow;
  }
}
