/**
 * The `calculate` tool: what the model sees of the calculator. The work happens in `CalculatorPool`, warm
 * worker processes that can be killed; this file only describes the tool and hands the expression over.
 */
import { z } from 'zod';
import { defineTool, type ToolDefinition } from '../../src/agent/tool.js';
import type { CalculatorPool } from './pool.js';
import { MAX_EXPRESSION_LENGTH } from './limits.js';

const parameters = z.object({
  expression: z
    .string()
    .describe(
      `A mathjs expression, at most ${MAX_EXPRESSION_LENGTH} characters, e.g. "12.5% * 80", "sqrt(2) * 3", "5 km to mi", "det([1, 2; 3, 4])".`,
    ),
});

/** The `calculate` tool, backed by `calculator` (shared by every call; it spreads them over its workers). */
export function createCalculateTool(calculator: CalculatorPool): ToolDefinition<z.infer<typeof parameters>> {
  return defineTool({
    name: 'calculate',
    description:
      'Evaluate a math expression exactly instead of doing arithmetic in your head. Supports + - * / ^, ' +
      'parentheses, percentages (15% * 80), functions (sqrt, log, sin, round, factorial, gcd, mean, ...), ' +
      'units and conversions (5 km to mi, 30 degC to degF, 2 hours + 45 minutes), matrices, complex numbers, ' +
      'fractions and big numbers (bignumber(2)^200). Returns the result only; text is never returned.',
    parameters,
    textParameter: 'expression',
    aliases: ['calculator', 'calc', 'math'],
    examples: ['(17 + 4) * 3 / 7', '15% * 240', '5 km to mi'],
    async run({ expression }, ctx) {
      return calculator.calculate(expression.trim(), ctx.signal);
    },
  });
}
