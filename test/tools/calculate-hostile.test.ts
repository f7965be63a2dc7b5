/**
 * Hostile input for `calculate`, one table row per payload: parser escapes from mathjs advisories,
 * ways into the instance's configuration, text smuggling, resource exhaustion, oversized input and
 * plain edge cases. Every row must come back as a result or a ToolError within its limit, and after the
 * whole table the calculator must still be healthy and ordinary.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolDefinition } from '../../src/agent/tool.js';
import { ToolError } from '../../src/errors.js';
import { createCalculateTool } from '../../tools/calculator/calculate.js';
import { CalculatorPool } from '../../tools/calculator/pool.js';
import { toolContext } from './helpers/tool-context.js';

// Every row ends by this limit: one the limit missed would run for minutes and time the test out, so
// the rows are not timed (how long a refusal takes is `npm run bench -- calculator-stops`).
const TIMEOUT_MS = 1_000;

type Row = [name: string, expression: string, expected: { result: string | RegExp } | { refused: RegExp }];

const TEXT = /only returns numbers.*text/;
const UNAVAILABLE = /is not available in this calculator/;
const NO_ACCESS = /No access to|not available|Cannot access|Cannot apply index/;
const TOO_BIG = /took longer than|more than the calculator's \d+ MB/;

const rows: Row[] = [
  // Parser escapes and known mathjs advisory payloads.
  ['function constructor call', 'cos.constructor("return process")()', { refused: /./ }],
  ['function constructor to set a host global', 'cos.constructor("globalThis.pwned = 1")', { refused: UNAVAILABLE }],
  ['array method constructor', '[].map.constructor("return this")', { refused: NO_ACCESS }],
  ['constructor through a string index', 'cos["constructor"]["constructor"]("return 1")', { refused: UNAVAILABLE }],
  ['constructor name built at run time', 'a = concat("con", "structor"); cos[a]', { refused: NO_ACCESS }],
  ['constructor held in a variable', 'f = cos.constructor; f("return 1")', { refused: UNAVAILABLE }],
  ['__proto__ pollution', 'x = {}; x.__proto__.pwned = 1', { refused: UNAVAILABLE }],
  ['prototype through an object', '{}["__proto__"]', { refused: UNAVAILABLE }],
  ['unit constructor', 'unit("5 cm").constructor', { refused: UNAVAILABLE }],
  ['function.call', 'cos.call(1, 2)', { refused: UNAVAILABLE }],
  ['function.bind', 'b = cos.bind; b', { refused: UNAVAILABLE }],
  ['import a replacement function', 'import({pwned: 1}, {override: true})', { refused: UNAVAILABLE }],
  ['import hidden behind a variable', 'f = import; f({sqrt: 1}, {override: true})', { refused: UNAVAILABLE }],
  ['createUnit', 'createUnit("everyone", "1 m")', { refused: UNAVAILABLE }],
  ['config to million-digit BigNumber', 'config({number: "BigNumber", precision: 1e6})', { refused: UNAVAILABLE }],
  ['config in a call that then throws', 'config({number: "BigNumber", precision: 1e6}); undefinedThing', { refused: UNAVAILABLE }],
  ['sqrt(2) after the config attempts is fast and ordinary', 'sqrt(2)', { result: '1.4142135623731' }],
  ['evaluate', 'evaluate("1 + 1")', { refused: UNAVAILABLE }],
  ['parse', 'parse("1 + 1")', { refused: UNAVAILABLE }],
  ['compile', 'compile("1 + 1")', { refused: UNAVAILABLE }],
  ['simplify', 'simplify("x + x")', { refused: UNAVAILABLE }],
  ['derivative', 'derivative("x^2", "x")', { refused: UNAVAILABLE }],
  ['rationalize', 'rationalize("1/x + 1")', { refused: UNAVAILABLE }],
  ['resolve', 'resolve', { refused: UNAVAILABLE }],
  ['reviver', 'reviver()', { refused: UNAVAILABLE }],
  ['typed', 'typed("f", {"number": sqrt})', { refused: UNAVAILABLE }],
  ['help', 'help(sin)', { refused: UNAVAILABLE }],
  ['chain', 'chain(3).add(4).done()', { refused: UNAVAILABLE }],
  ['parser', 'parser()', { refused: UNAVAILABLE }],
  ['class constructors', 'SymbolNode("x")', { refused: UNAVAILABLE }],
  ['the emitter', 'on("config", sqrt)', { refused: UNAVAILABLE }],
  ['host globals are not symbols', 'process', { refused: /Undefined symbol process/ }],
  ['globalThis is not a symbol', 'globalThis', { refused: /Undefined symbol/ }],
  // Text smuggled into the thread.
  ['a string literal', '"@everyone"', { refused: TEXT }],
  ['a concatenated string', 'concat("@every", "one")', { refused: TEXT }],
  ['a string inside a matrix', '["@everyone", 1]', { refused: /matrix holds something other/ }],
  ['format() returns text', 'format(1/3)', { refused: TEXT }],
  ['typeOf returns text', 'typeOf(1)', { refused: TEXT }],
  ['version constant', 'version', { refused: TEXT }],
  ['function source code', 'cos.toString()', { refused: TEXT }],
  ['an object', '{a: "@here"}', { refused: /not a number, unit, matrix/ }],
  ['a JSON object from a matrix', 'matrix([1]).toJSON()', { refused: /not a number, unit, matrix/ }],
  ['a function value', 'f(x) = x^2', { refused: /function, not a value/ }],
  // Resource exhaustion.
  ['factorial(1e7) in number mode', 'factorial(1e7)', { result: /^Infinity \(overflow: / }],
  ['factorial of a huge BigNumber', 'factorial(bignumber(1e7))', { refused: TOO_BIG }],
  ['a 1e5 x 1e5 matrix', 'zeros(1e5, 1e5)', { refused: TOO_BIG }],
  ['a billion-element range', 'sum(1:1e9)', { refused: TOO_BIG }],
  ['a million-element result', 'ones(1000, 1000)', { refused: /too large to show/ }],
  ['5000-deep nesting', `${'('.repeat(5000)}1${')'.repeat(5000)}`, { refused: /nests brackets 5000 levels deep/ }],
  ['60-deep matrix nesting', `${'['.repeat(60)}1${']'.repeat(60)}`, { refused: /levels deep/ }],
  ['100 KB of input', `1+${'1+'.repeat(50_000)}1`, { refused: /characters long; the calculator accepts at most/ }],
  ['900 unary minus signs', `${'-'.repeat(900)}1`, { result: '1' }],
  ['a power tower', `2${'^2'.repeat(300)}`, { result: /^Infinity \(overflow: / }],
  // Plain edge cases.
  ['division by zero', '1/0', { result: /^Infinity \(division by zero: / }],
  ['zero by zero', '0/0', { result: /^NaN \(undefined form/ }],
  ['empty input', '', { refused: /expression is empty/ }],
  ['only spaces', '   ', { refused: /expression is empty/ }],
  ['unfinished expression', '1 +', { refused: /Unexpected end of expression/ }],
  ['unknown function', 'foo(3)', { refused: /Undefined function foo/ }],
  ['a unit conversion', '5 km to mi', { result: '3.1068559611867 mi' }],
  ['temperature conversion', '30 degC to degF', { result: /^86(\.0+\d*)? degF$/ }],
  ['a percentage of a number', '15% * 80', { result: '12' }],
  ['adding a percentage', '50 + 10%', { result: '55' }],
  ['binary noise is hidden', '0.1 + 0.2', { result: '0.3' }],
  ['a big float', '2^100', { result: '1.2676506002282e+30' }],
  ['a big exact integer', 'bignumber(2)^100', { result: '1267650600228229401496703205376' }],
  ['a variable from one call', 'x = 5', { result: '5' }],
  ['is gone in the next call', 'x', { refused: /Undefined symbol x/ }],
  ['a unit name people type', '5 everyone', { refused: /Undefined symbol everyone/ }],
  ['complex roots', 'sqrt(-4)', { result: '2i' }],
  ['fractions', 'fraction(1, 3) + fraction(1, 6)', { result: '1/2' }],
  ['matrices', '[1, 2; 3, 4] * [5; 6]', { result: '[[17], [39]]' }],
  ['booleans', '3 > 2', { result: 'true' }],
];

describe('calculate under hostile input', () => {
  let calculator: CalculatorPool;
  let calculate: ToolDefinition;

  beforeAll(async () => {
    calculator = new CalculatorPool({ timeoutMs: TIMEOUT_MS, maxMemoryMb: 64 });
    calculate = createCalculateTool(calculator);
    await calculate.run({ expression: '1 + 1' }, toolContext()); // start the worker before timing rows
  });

  afterAll(async () => {
    await calculator.close();
  });

  it('has at least forty rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
  });

  for (const [name, expression, expected] of rows) {
    it(`${name}: answers with ${'result' in expected ? 'a result' : 'a clear refusal'} in time`, async () => {
      const outcome = await calculate.run({ expression }, toolContext()).then(
        (result) => ({ result: String(result) }),
        (error: unknown) => ({ error }),
      );
      if ('result' in expected) {
        expect(outcome).toHaveProperty('result');
        const result = (outcome as { result: string }).result;
        if (typeof expected.result === 'string') expect(result).toBe(expected.result);
        else expect(result).toMatch(expected.result);
      } else {
        expect(outcome).toHaveProperty('error');
        const error = (outcome as { error: unknown }).error;
        expect(error).toBeInstanceOf(ToolError);
        expect((error as ToolError).message).toMatch(expected.refused);
      }
    });
  }

  it('leaves the host untouched and the calculator healthy and ordinary afterwards', async () => {
    expect((globalThis as Record<string, unknown>).pwned).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
    await expect(calculator.health()).resolves.toBeUndefined();
    expect(calculator.restarts).toBeGreaterThan(0); // the exhaustion rows really did cost workers their lives
    // Ordinary calls afterwards are answered by the workers there are, costing none of them.
    const restarts = calculator.restarts;
    expect(await calculate.run({ expression: '6 * 7' }, toolContext())).toBe('42');
    expect(await calculate.run({ expression: 'sqrt(2)' }, toolContext())).toBe('1.4142135623731');
    expect(calculator.restarts).toBe(restarts);
  });
});
