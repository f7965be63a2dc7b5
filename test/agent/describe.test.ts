/**
 * Describing a call for people never throws and never costs more than what it shows: arguments come
 * from the model, nested 10,000 deep, megabytes long, a million items wide.
 */
import { describe, expect, it } from 'vitest';
import { boundedJson, describeAction, describeInput } from '../../src/agent/describe.js';

function deep(depth: number, inner: unknown = 1): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

describe('describing a call', () => {
  it('shows a lone string bare and anything else as compact JSON', () => {
    expect(describeAction('calculate', { expression: '2 + 2' })).toBe('calculate(2 + 2)');
    expect(describeInput({ a: 1, b: [true, null, 'x'] })).toBe('{"a":1,"b":[true,null,"x"]}');
    expect(describeInput({})).toBe('');
    expect(describeInput([1, 2])).toBe('[1,2]');
  });

  it('a value nested 10,000 deep is shown 20 levels deep, without throwing', () => {
    const value = deep(10_000);
    expect(() => JSON.stringify(value)).toThrow(/call stack/);
    const shown = describeInput(value);
    expect(shown).toMatch(/^\[\{"a":\[\{"a":/);
    expect(shown).toContain('…');
    expect(shown.length).toBeLessThanOrEqual(1_000);
  });

  it('a 1 MB string, a million items and 200,000 keys are cut to the length asked', () => {
    const big = 'x'.repeat(1_000_000);
    const wide = Array.from({ length: 1_000_000 }, (_, i) => i);
    const keys = Object.fromEntries(wide.slice(0, 200_000).map((i) => [`k${i}`, i]));
    for (const value of [big, { a: big, b: 1 }, wide, keys]) {
      const shown = describeInput(value, 300);
      expect(shown.length).toBeLessThanOrEqual(300);
      expect(shown.endsWith('…')).toBe(true);
    }
  });

  it('never splits a surrogate pair at the cut, and writes what JSON cannot hold as null', () => {
    const shown = boundedJson({ s: '😀'.repeat(100) }, { maxChars: 20 });
    expect(shown).not.toMatch(/[\uD800-\uDBFF]…/);
    expect(boundedJson([NaN, Infinity, undefined, () => 1, 10n])).toBe('[null,null,null,null,10]');
  });
});
