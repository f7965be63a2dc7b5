/** Run one of the project's entry points as a user would (node + tsx), with only the environment given. */
import { spawn } from 'node:child_process';

export interface ScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runScript(script: string, args: string[], env: Record<string, string>, input = ''): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.stdin.end(input);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
