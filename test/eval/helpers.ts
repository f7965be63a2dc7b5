/** What the evaluation runner's tests share: a suite file, a model server that answers by question, the runner in-process. */
import fs from 'node:fs';
import path from 'node:path';
import { FakeOpenAIServer, type RecordedRequest, type ScriptedReply } from '../fakes/openai-server.js';
import { runEval } from '../../src/eval/main.js';
import type { CoreOverrides } from '../../src/core.js';

/** The question a request asks: its last user message. */
export function questionOf(request: RecordedRequest): string {
  return String(request.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');
}

/** A fake server listing `models`, each request answered by `answer` (from its model and question). */
export async function modelServer(models: string[], answer: (model: string, question: string, request: RecordedRequest) => ScriptedReply, count = 200): Promise<FakeOpenAIServer> {
  const server = await FakeOpenAIServer.start({ models: { object: 'list', data: models.map((id) => ({ id, object: 'model', owned_by: 'test' })) } });
  const reply: ScriptedReply = (request) => answer(request.body.model, questionOf(request), request);
  server.script(...Array.from({ length: count }, () => reply));
  return server;
}

/** Write `cases` (objects, or raw lines) as a suite file in `dir`. */
export function writeSuite(dir: string, cases: Array<Record<string, unknown> | string>, name = 'suite.jsonl'): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, cases.map((c) => (typeof c === 'string' ? c : JSON.stringify(c))).join('\n') + '\n');
  return file;
}

/**
 * The environment of a run against `server`, otherwise the production defaults: KEYV_URL in memory so a
 * test never touches the project's data/, and Wikipedia at a closed loopback port so nothing leaves 127.0.0.1.
 */
export function evalEnv(server: FakeOpenAIServer, more: Record<string, string> = {}): Record<string, string> {
  return { OPENAI_BASE_URL: server.baseURL, OPENAI_MODEL: 'model-a', WIKIPEDIA_API_URL: 'http://127.0.0.1:9/w/api.php', KEYV_URL: 'memory:', ...more };
}

/** The runner in this process: exit code and what it printed. */
export async function evalInProcess(argv: string[], env: Record<string, string>, cwd: string, core?: CoreOverrides): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runEval(argv, { env, dotenvDir: false, cwd, stdout: (t) => (stdout += t), stderr: { write: (t) => void (stderr += t), isTTY: false }, core });
  return { code, stdout, stderr };
}

/** The JSON report a run wrote (the path it printed). */
export function jsonReport(stdout: string): any {
  const file = /^JSON: +(.+)$/m.exec(stdout)?.[1];
  if (!file) throw new Error(`no JSON report path in:\n${stdout}`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}
