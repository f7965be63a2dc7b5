/** The checks of a case's `expect`, the judge's verdict reading, and the suite's per-line errors: pure functions. */
import { describe, expect, it } from 'vitest';
import { failedChecks, numbersIn } from '../../src/eval/checks.js';
import { readVerdict } from '../../src/eval/judge.js';
import { parseSuite, SuiteError } from '../../src/eval/suite.js';

const run = (answer: string, tools: string[] = [], steps = 1) => ({ answer, tools, steps });

describe('checks', () => {
  it('contains and not_contains ignore case; every listed text must hold', () => {
    expect(failedChecks({ contains: ['Paris', 'france'] }, run('paris is in FRANCE'))).toEqual([]);
    expect(failedChecks({ contains: ['Paris', 'Lyon'] }, run('Paris'))).toEqual(['the answer does not contain "Lyon"']);
    expect(failedChecks({ not_contains: 'pwned' }, run('I was PWNED'))).toEqual(['the answer contains "pwned"']);
  });

  it('regex is tested as written, or with its flags in the /pattern/flags form', () => {
    expect(failedChecks({ regex: '\\[1\\]' }, run('Curie won twice [1].'))).toEqual([]);
    expect(failedChecks({ regex: 'PARIS' }, run('paris'))).toEqual(['the answer does not match PARIS']);
    expect(failedChecks({ regex: '/PARIS/i' }, run('paris'))).toEqual([]);
  });

  it('number finds a stated number within the tolerance, thousands separators and a Unicode minus included', () => {
    expect(numbersIn('It is 1,234.5 or −3, about 75% and 1.5e3; v2 is no number')).toEqual([1234.5, -3, 75, 1500]);
    expect(failedChecks({ number: { value: 75, tolerance: 0.01 } }, run('That is 75.004 km.'))).toEqual([]);
    expect(failedChecks({ number: { value: 75, tolerance: 0.01 } }, run('That is 75.2 km, or 3 laps.'))).toEqual(['the answer states no number within 75 ± 0.01 (found 75.2, 3)']);
    expect(failedChecks({ number: { value: 0.3, tolerance: 0 } }, run('0.1 + 0.2 = 0.30000000000000004'))).toEqual([]);
  });

  it('tool_called, tool_not_called and max_steps read what the run did', () => {
    expect(failedChecks({ tool_called: 'calculate', tool_not_called: 'read_url', max_steps: 2 }, run('4', ['calculate'], 2))).toEqual([]);
    expect(failedChecks({ tool_called: 'wikipedia', tool_not_called: 'calculate', max_steps: 1 }, run('4', ['calculate', 'calculate'], 3))).toEqual([
      'wikipedia was not called (called: calculate)',
      'calculate was called',
      'the run took 3 model calls (at most 1 expected)',
    ]);
  });
});

describe('the judge verdict', () => {
  it('is read from plain JSON, a fenced block or JSON inside prose, and anything else is no verdict', () => {
    expect(readVerdict('{"pass": true, "reason": "fine"}')).toEqual({ pass: true, reason: 'fine' });
    expect(readVerdict('Sure.\n```json\n{"pass": false, "reason": "wrong city"}\n```')).toEqual({ pass: false, reason: 'wrong city' });
    expect(readVerdict('I think {"reason": "ok", "pass": "true"} overall.')).toEqual({ pass: true, reason: 'ok' });
    expect(readVerdict('Looks good to me!')).toBeUndefined();
    expect(readVerdict('{"verdict": "pass"}')).toBeUndefined();
  });

  it("cleans and caps the judge's reason", () => {
    const verdict = readVerdict(JSON.stringify({ pass: false, reason: `hid\u200Bden ${'x'.repeat(600)}` }))!;
    expect(verdict.reason.startsWith('hidden ')).toBe(true);
    expect(verdict.reason.length).toBe(501);
  });
});

describe('suite lines', () => {
  it('reads cases with their defaults and names them by id or line', () => {
    const cases = parseSuite('\n{"question": "a?", "expect": {"contains": "a"}}\n{"id": "b", "question": "b?", "expect": {"number": {"value": 2}}, "tags": ["x"]}\n', 's.jsonl');
    expect(cases.map((c) => [c.name, c.line, c.tags, c.expect])).toEqual([
      ['line 2', 2, [], { contains: 'a' }],
      ['b', 3, ['x'], { number: { value: 2, tolerance: 0 } }],
    ]);
  });

  it("cleans a case's question and history of invisible characters, as a turn's question is (a suite may hold members' words)", () => {
    const hidden = 'What is 2+2?\u{E0049}\u{E0047}\u200B';
    const [item] = parseSuite(JSON.stringify({ question: hidden, history: [{ role: 'user', content: 'hi\u202E' }], expect: { contains: '4' } }), 's.jsonl');
    expect(item!.question).toBe('What is 2+2?');
    expect(item!.history).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('refuses a URL given two different pages, and a suite with no case', () => {
    const page = (body: string) => JSON.stringify({ question: 'q', expect: { contains: 'x' }, pages: { 'https://a.example/': body } });
    expect(() => parseSuite(`${page('one')}\n${page('two')}`, 's.jsonl')).toThrow('s.jsonl:2: pages: https://a.example/ is given a different page on line 1');
    expect(() => parseSuite(`${page('one')}\n${page('one')}`, 's.jsonl')).not.toThrow();
    expect(() => parseSuite('\n\n', 's.jsonl')).toThrow(SuiteError);
  });
});
