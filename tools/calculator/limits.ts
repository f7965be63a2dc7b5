/**
 * Cheap checks on a calculator expression, made before anything parses it. The host runs them so a
 * 100 KB paste or a 5,000-deep nest never even reaches the worker; the worker runs them again because
 * it must not trust its caller. Deliberately free of mathjs so the host thread never loads it.
 */

/** Longest expression accepted. Real calculations are far shorter; a matrix of 100 numbers fits. */
export const MAX_EXPRESSION_LENGTH = 1_000;

/**
 * Deepest bracket nesting accepted. The mathjs parser recurses per level and overflows its stack a
 * few hundred levels down (sooner in a worker's smaller stack); 50 is far beyond any honest formula.
 */
export const MAX_NESTING_DEPTH = 50;

/** Deepest bracket nesting in `expression`, counting (, [ and { alike. Quotes are not special: counting
 * brackets inside strings too only ever overestimates, which is the safe direction. */
export function nestingDepth(expression: string): number {
  let depth = 0;
  let deepest = 0;
  for (const char of expression) {
    if (char === '(' || char === '[' || char === '{') {
      depth += 1;
      if (depth > deepest) deepest = depth;
    } else if ((char === ')' || char === ']' || char === '}') && depth > 0) {
      depth -= 1;
    }
  }
  return deepest;
}

/**
 * Why `expression` cannot be calculated as given, in words for the model, or undefined when it may go
 * on to the parser.
 */
export function expressionProblem(expression: string): string | undefined {
  if (expression.trim() === '') {
    return 'The expression is empty. Give a math expression such as 2 * (3 + 4), sqrt(2) or 5 km to mi.';
  }
  // Depth first: for a deep nest it is the more useful complaint. Counting is linear, even for 100 KB.
  const depth = nestingDepth(expression);
  if (depth > MAX_NESTING_DEPTH) {
    return `The expression nests brackets ${depth} levels deep; the calculator accepts at most ${MAX_NESTING_DEPTH}. Simplify it or split it into steps.`;
  }
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    return `The expression is ${expression.length} characters long; the calculator accepts at most ${MAX_EXPRESSION_LENGTH}. Split the work into smaller calculations.`;
  }
  return undefined;
}
