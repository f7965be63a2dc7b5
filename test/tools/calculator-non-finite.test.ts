/**
 * A result that is not a finite number comes back with the reason in words, so a model does not
 * print a bare "Infinity" as its answer.
 */
import { describe, expect, it } from 'vitest';
import { createCalculatorEvaluator } from '../../tools/calculator/evaluator.js';
import { CalculatorPool } from '../../tools/calculator/pool.js';
import { createCalculateTool } from '../../tools/calculator/calculate.js';
import { toolContext } from './helpers/tool-context.js';

const evaluator = createCalculatorEvaluator();
const result = (expression: string) => {
  const reply = evaluator.calculate(expression);
  if (!reply.ok) throw new Error(`refused: ${reply.message}`);
  return reply.text;
};

describe('non-finite results, explained', () => {
  it.each([
    ['1/0', /^Infinity \(division by zero\b/],
    ['-1/0', /^-Infinity \(division by zero\b/],
    ['1 / (2 - 2)', /^Infinity \(division by zero\b/],
    ['0^-1', /^Infinity \(division by zero\b/],
    ['bignumber(1) / 0', /^Infinity \(division by zero\b/],
  ])('division by zero: %s', (expression, expected) => {
    expect(result(expression)).toMatch(expected);
  });

  it.each([
    ['1e309', /^Infinity \(overflow\b.*1\.8e308/],
    ['-1e309', /^-Infinity \(overflow\b.*1\.8e308/],
    ['factorial(1e6)', /^Infinity \(overflow\b.*1\.8e308/],
    ['10^400', /^Infinity \(overflow\b/],
    ['exp(1000) * 2', /^Infinity \(overflow\b/],
  ])('overflow: %s', (expression, expected) => {
    expect(result(expression)).toMatch(expected);
  });

  it.each([
    ['log(0)', /^-Infinity \(log of zero\b/],
    ['log10(0)', /^-Infinity \(log of zero\b/],
    ['3 + log2(0)', /^-Infinity \(log of zero\b/],
  ])('log of zero: %s', (expression, expected) => {
    expect(result(expression)).toMatch(expected);
  });

  it.each([
    ['0/0', /^NaN \(undefined form\b/],
    ['1e309 - 1e309', /^NaN \(overflow\b/], // the first cause is named, not the symptom
    ['Infinity - Infinity', /^NaN \(undefined form\b/],
    ['0 * Infinity', /^NaN \(undefined form\b/],
  ])('undefined form: %s', (expression, expected) => {
    expect(result(expression)).toMatch(expected);
  });

  it('explains each shown line of a multi-line result, and leaves finite ones alone', () => {
    expect(result('a = 0; 2 + 2\n5 / a')).toMatch(/^4\nInfinity \(division by zero\b/);
    expect(result('2 + 2')).toBe('4');
    expect(result('1e308')).toBe('1e+308');
  });

  it('says so through the tool, the way the model sees it', async () => {
    const calculator = new CalculatorPool({ workers: 1 });
    try {
      const calculate = createCalculateTool(calculator);
      for (const [expression, reason] of [['1/0', 'division by zero'], ['1e309', 'overflow'], ['log(0)', 'log of zero'], ['factorial(1e6)', 'overflow'], ['0/0', 'undefined form']]) {
        expect(String(await calculate.run({ expression: expression! }, toolContext()))).toContain(reason);
      }
    } finally {
      await calculator.close();
    }
  });
});
