/**
 * A production install in a temporary directory: `npm run build` compiles the project into its
 * `dist/`, beside a copy of package.json, and its `node_modules` holds the production dependencies
 * only (links into the project's own; no tsx, TypeScript, vitest or other development dependency).
 * So `npm run start:prod` there fails if anything on the run-time path still needs one of them.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface CompiledInstall {
  dir: string;
  remove(): void;
}

const ROOT = process.cwd();

export async function buildCompiled(label: string): Promise<CompiledInstall> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `threadwise-${label}-`));
  const remove = () => fs.rmSync(dir, { recursive: true, force: true });
  try {
    const build = await run('npm', ['run', 'build', '--', '--outDir', path.join(dir, 'dist')], ROOT);
    if (build.code !== 0) throw new Error(`npm run build failed (${build.code}):\n${build.output}`);
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
    linkProductionModules(dir);
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

function linkProductionModules(dir: string): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  const dev = new Set(Object.keys(pkg.devDependencies ?? {}));
  const from = path.join(ROOT, 'node_modules');
  const to = path.join(dir, 'node_modules');
  fs.mkdirSync(to);
  for (const entry of fs.readdirSync(from)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      fs.mkdirSync(path.join(to, entry));
      for (const name of fs.readdirSync(path.join(from, entry))) {
        if (!dev.has(`${entry}/${name}`)) fs.symlinkSync(path.join(from, entry, name), path.join(to, entry, name), 'dir');
      }
    } else if (!dev.has(entry)) {
      fs.symlinkSync(path.join(from, entry), path.join(to, entry), 'dir');
    }
  }
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => resolve({ code, output }));
  });
}
