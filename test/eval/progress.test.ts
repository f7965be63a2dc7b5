/** Progress on stderr: a bar redrawn in place on a terminal, a plain line every N runs otherwise. */
import { describe, expect, it } from 'vitest';
import { Progress } from '../../src/eval/progress.js';

const output = (isTTY: boolean) => {
  const writes: string[] = [];
  return { writes, out: { isTTY, write: (text: string) => void writes.push(text) } };
};

describe('progress', () => {
  it('redraws one bar on a terminal and ends its line after the last run', () => {
    const { writes, out } = output(true);
    const progress = new Progress(out, 4);
    for (const status of ['pass', 'fail', 'pass', 'error'] as const) progress.tick(status);
    expect(writes).toHaveLength(4);
    expect(writes[0]).toBe(`\r[${'#'.repeat(6)}${'.'.repeat(18)}] 1/4 runs: 1 passed, 0 failed, 0 errors`);
    expect(writes[3]).toBe(`\r[${'#'.repeat(24)}] 4/4 runs: 2 passed, 1 failed, 1 error\n`);
  });

  it('writes a plain line every N runs and at the end when stderr is not a terminal', () => {
    const { writes, out } = output(false);
    const progress = new Progress(out, 7, 3);
    for (let i = 0; i < 7; i++) progress.tick('pass');
    expect(writes).toEqual(['3/7 runs: 3 passed, 0 failed, 0 errors\n', '6/7 runs: 6 passed, 0 failed, 0 errors\n', '7/7 runs: 7 passed, 0 failed, 0 errors\n']);
  });
});
