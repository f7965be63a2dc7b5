/**
 * The evaluation runner in-process against the local fake model server: the judge, a server that
 * fails mid-run, bad input refused before any model call, and what a case carries (persona, tools, pages).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeOpenAIServer, RecordedRequest } from '../fakes/openai-server.js';
import { tempDir } from '../state/helpers/targets.js';
import { evalEnv, evalInProcess, jsonReport, modelServer, questionOf, writeSuite } from './helpers.js';

let server: FakeOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const judgeRequests = (s: FakeOpenAIServer) => s.requests.filter((r) => r.body.model === 'judge-model');
const systemOf = (r: RecordedRequest) => String(r.body.messages.find((m) => m.role === 'system')?.content ?? '');

describe('npm run eval: the judge', () => {
  it('asks the judge model with the rubric and a JSON schema, and fails the case with the reason it gives', async () => {
    server = await modelServer(['model-a', 'judge-model'], (model, question) => {
      if (model !== 'judge-model') return { content: question.includes('capital') ? 'Paris is the capital.' : 'I cannot say.' };
      return { content: JSON.stringify(question.includes('Paris is') ? { pass: true, reason: 'names Paris' } : { pass: false, reason: 'no city is named' }) };
    });
    const dir = tempDir('eval-judge');
    const suite = writeSuite(dir, [
      { id: 'capital', question: 'What is the capital of France?', expect: { judge: 'The answer names Paris as the capital.' } },
      { id: 'river', question: 'Which river runs through Paris?', expect: { judge: 'The answer names the Seine.', contains: 'seine' } },
    ]);
    const { code, stdout } = await evalInProcess([suite], evalEnv(server, { EVAL_JUDGE_MODEL: 'judge-model' }), dir);
    expect(code).toBe(0);
    const asked = judgeRequests(server);
    expect(asked).toHaveLength(2);
    const first = asked.find((r) => questionOf(r).includes('capital of France'))!;
    expect(questionOf(first)).toContain('<rubric>\nThe answer names Paris as the capital.\n</rubric>');
    expect(questionOf(first)).toContain('<answer>\nParis is the capital.\n</answer>');
    expect((first.body as { response_format?: { type: string } }).response_format?.type).toBe('json_schema');
    const report = jsonReport(stdout);
    expect(report.cases.map((c: { id: string; status: string; reason: string }) => [c.id, c.status, c.reason])).toEqual([
      ['capital', 'pass', ''],
      ['river', 'fail', 'the answer does not contain "seine"; the judge failed it: no city is named'],
    ]);
    expect(report.judge).toMatchObject({ model: 'judge-model', calls: 2 });
    expect(report.settings.judge_model).toBe('judge-model');

    // Without EVAL_JUDGE_MODEL the model under test judges itself (said); a reply with no verdict is an error, not a fail.
    const self = await evalInProcess([suite], evalEnv(server), dir);
    expect(self.stderr).toContain('Note: the judge (model-a) is also a model under test');
    const statuses = jsonReport(self.stdout).cases.map((c: { status: string; reason: string }) => [c.status, c.reason]);
    expect(statuses[0]).toEqual(['error', expect.stringContaining('The judge model (model-a) gave no verdict')]);
  }, 30_000);

  it('asks again without response_format when the server refuses it, and reads the verdict from the JSON in its text', async () => {
    let refused = 0;
    server = await modelServer(['model-a', 'judge-model'], (model, _question, request) => {
      if (model !== 'judge-model') return { content: 'Blue.' };
      if ((request.body as { response_format?: unknown }).response_format) {
        refused++;
        return { status: 400, error: "Unsupported parameter: 'response_format' is not supported with this model.", param: 'response_format' };
      }
      return { content: 'Here is my verdict:\n```json\n{"pass": true, "reason": "says blue"}\n```' };
    });
    const dir = tempDir('eval-judge-text');
    const suite = writeSuite(dir, [1, 2, 3].map((n) => ({ question: `Sky colour ${n}?`, expect: { judge: 'Says the sky is blue.' } })));
    const { code, stdout } = await evalInProcess([suite, '--concurrency', '1'], evalEnv(server, { EVAL_JUDGE_MODEL: 'judge-model' }), dir);
    expect(code).toBe(0);
    // Refused once: the rest of the run asks without it.
    expect(refused).toBe(1);
    expect(jsonReport(stdout).cases.map((c: { status: string }) => c.status)).toEqual(['pass', 'pass', 'pass']);
  }, 30_000);
});

describe('npm run eval: errors are not failures', () => {
  it('reports the cases a server that fails mid-run broke as errors, outside the rate', async () => {
    let calls = 0;
    server = await modelServer(['model-a'], () => (++calls > 4 ? { status: 500, error: 'upstream exploded' } : { content: 'right' }));
    const dir = tempDir('eval-down');
    const suite = writeSuite(dir, Array.from({ length: 6 }, (_, i) => ({ question: `q${i}`, expect: { contains: 'right' }, tags: ['t'] })));
    // No retries: each broken case fails at its first request instead of waiting out the backoff; the retries are not under test.
    const { code, stdout } = await evalInProcess([suite, '--concurrency', '1', '--min-pass', '0.8'], evalEnv(server, { OPENAI_MAX_RETRIES: '0' }), dir);
    const report = jsonReport(stdout);
    expect(report.models['model-a']).toMatchObject({ passed: 4, failed: 0, errors: 2, total: 6, rate: 1 });
    expect(report.models['model-a'].tags.t).toEqual({ passed: 4, failed: 0, errors: 2, total: 6, rate: 1 });
    const broken = report.cases.filter((c: { status: string }) => c.status === 'error');
    expect(broken).toHaveLength(2);
    expect(broken[0].reason).toContain('upstream exploded');
    expect(stdout).toContain('## Errors (not counted in the rate)');
    expect(code).toBe(0);
  }, 30_000);

  it('a run that ends at the step limit without an answer is a fail, not an error', async () => {
    server = await modelServer(['model-a'], () => ({ toolCalls: [{ name: 'calculate', arguments: { expression: '1 + 1' } }] }));
    const dir = tempDir('eval-steps');
    const suite = writeSuite(dir, [{ question: 'loop forever', expect: { contains: '2' } }]);
    // Two steps so the run reaches its limit quickly; the forced last answer is scripted as another tool call.
    const { stdout } = await evalInProcess([suite], evalEnv(server, { AGENT_MAX_STEPS: '2' }), dir);
    const [only] = jsonReport(stdout).cases;
    expect(only.status).toBe('fail');
    expect(only.reason).toMatch(/^no answer: /);
  }, 30_000);
});

describe('npm run eval: bad input', () => {
  it('names every bad line of a suite with its number and exits 2 before any model call', async () => {
    server = await modelServer(['model-a'], () => ({ content: 'x' }));
    const dir = tempDir('eval-bad');
    const suite = writeSuite(dir, [
      { question: 'fine', expect: { contains: 'x' } },
      '{"question": "broken", ',
      { question: 'typo', expect: { containz: 'x' } },
      { question: 'regex', expect: { regex: '(unclosed' } },
      { question: 'nothing', expect: {} },
      { expect: { contains: 'x' } },
      { question: 'field', expect: { contains: 'x' }, tag: ['a'] },
    ]);
    const { code, stderr } = await evalInProcess([suite], evalEnv(server), dir);
    expect(code).toBe(2);
    expect(stderr).toContain(`${suite}:2: not valid JSON`);
    expect(stderr).toContain(`${suite}:3: unknown check "containz" (known: contains, not_contains, regex, number, tool_called, tool_not_called, max_steps, judge) in expect.`);
    expect(stderr).toContain(`${suite}:4: expect.regex "(unclosed" is not a valid regular expression`);
    expect(stderr).toContain(`${suite}:5: expect: needs at least one check`);
    expect(stderr).toContain(`${suite}:6: question is missing.`);
    expect(stderr).toContain(`${suite}:7: unknown field "tag" (known: id, question, expect, tags,`);
    expect(server.requests).toHaveLength(0);
  }, 30_000);

  it('refuses a missing suite, a missing persona file, unknown tools and unknown models with what is known, before any model call', async () => {
    server = await modelServer(['model-a', 'model-b'], () => ({ content: 'x' }));
    const dir = tempDir('eval-bad-flags');
    const missing = await evalInProcess(['nope.jsonl'], evalEnv(server), dir);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');

    const suite = writeSuite(dir, [{ question: 'q', expect: { tool_called: 'calculator' } }]);
    const persona = await evalInProcess([suite, '--persona', 'absent.txt'], evalEnv(server), dir);
    expect(persona.code).toBe(2);
    expect(persona.stderr).toContain('--persona absent.txt: cannot be read');

    const tools = await evalInProcess([suite, '--tools', 'calculate,teleport'], evalEnv(server), dir);
    expect(tools.code).toBe(2);
    expect(tools.stderr).toContain('--tools: unknown tool teleport. Known tools: calculate, wikipedia, current_time, read_url, plot.');
    expect(tools.stderr).toContain(`${suite}:1: unknown tool calculator. Known tools: calculate,`);

    const okSuite = writeSuite(dir, [{ question: 'q', expect: { contains: 'x' } }], 'ok.jsonl');
    const model = await evalInProcess([okSuite, '--model', 'model-a', '--model', 'model-z'], evalEnv(server), dir);
    expect(model.code).toBe(2);
    expect(model.stderr).toContain('The model server does not have "model-z" (--model, OPENAI_MODEL or EVAL_JUDGE_MODEL). It lists: model-a, model-b.');

    const config = await evalInProcess([okSuite], { EVAL_JUDGE_MODEL: 'two words' }, dir);
    expect(config.code).toBe(2);
    expect(config.stderr).toContain('OPENAI_API_KEY is missing');
    expect(config.stderr).toContain('EVAL_JUDGE_MODEL must be a model name (got "two words")');

    const flags = await evalInProcess([okSuite, '--repeat', '0', '--min-pass', '80'], evalEnv(server), dir);
    expect(flags.code).toBe(2);
    expect(flags.stderr).toMatch(/--repeat must be a whole number from 1 to 100 \(got "0"\); --min-pass must be a pass rate from 0 to 1/);
    expect(server.requests).toHaveLength(0);
  }, 30_000);
});

describe('npm run eval: what a case carries', () => {
  it("runs a case with its own persona and tools over --persona and --tools, its history before the question, and read_url reads the case's pages", async () => {
    server = await modelServer(['model-a'], (_model, question, request) => {
      const read = request.body.messages.find((m) => m.role === 'tool');
      if (question.includes('page') && !read) return { toolCalls: [{ name: 'read_url', arguments: { url: 'https://notes.example/raid' } }] };
      return { content: read ? `The page says: ${read.content}` : 'Ahoy.' };
    });
    const dir = tempDir('eval-carry');
    fs.writeFileSync(path.join(dir, 'persona.txt'), 'Speak like a librarian.');
    const page = '<html><head><title>Raid notes</title></head><body><article><h1>Raid notes</h1><p>Raid night is Friday at 20:00 UTC. The boss is weak to fire.</p></article></body></html>';
    const suite = writeSuite(dir, [
      { id: 'own', question: 'Greet me', persona: 'Speak like a pirate.', tools: ['calculate'], history: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello.' }], expect: { contains: 'ahoy' } },
      { id: 'flags', question: 'Greet me again', expect: { contains: 'ahoy' } },
      { id: 'page', question: 'What does the raid page say?', pages: { 'https://notes.example/raid': page }, expect: { contains: 'Friday at 20:00', tool_called: 'read_url' } },
    ]);
    const { code, stdout } = await evalInProcess([suite, '--persona', 'persona.txt', '--tools', 'calculate,current_time,read_url', '--concurrency', '1'], evalEnv(server), dir);
    expect(jsonReport(stdout).cases.map((c: { status: string }) => c.status)).toEqual(['pass', 'pass', 'pass']);
    expect(code).toBe(0);
    const [own, flags] = server.requests;
    expect(systemOf(own!)).toContain('<persona>\nSpeak like a pirate.\n</persona>');
    expect(own!.body.tools?.map((t) => t.function.name).filter((n) => n !== 'final_answer')).toEqual(['calculate']);
    expect(own!.body.messages.filter((m) => m.role !== 'system').map((m) => m.content)).toEqual(['Hi', 'Hello.', 'Greet me']);
    expect(systemOf(flags!)).toContain('<persona>\nSpeak like a librarian.\n</persona>');
    expect(flags!.body.tools?.map((t) => t.function.name).filter((n) => n !== 'final_answer')).toEqual(['calculate', 'current_time', 'read_url']);
    // The page went through read_url's own reading (title, text), not the network.
    const observation = server.requests.at(-1)!.body.messages.find((m) => m.role === 'tool')!.content;
    expect(observation).toMatch(/^Title: Raid notes\nURL: https:\/\/notes\.example\/raid\n/);
  }, 30_000);
});
