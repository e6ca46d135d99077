import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');
export const APPS = path.join(ROOT, 'test', 'fixtures', 'apps');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  json<T = any>(): T;
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Called with the child once it is spawned (e.g. to send SIGINT mid-run). */
  onSpawn?: (child: ReturnType<typeof spawn>) => void;
  timeoutMs?: number;
}

/** Runs the built CLI as a user would, capturing everything. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return runCliOn(process.execPath, args, options);
}

/** The same with another Node binary running the CLI (the version-matrix tests). */
export function runCliOn(node: string, args: string[], options: CliOptions = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [CLI, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`CLI timed out: hotpath ${args.join(' ')}\n${stderr}`)); }, options.timeoutMs ?? 90_000);
    options.onSpawn?.(child);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code, signal, stdout, stderr,
        json() {
          try { return JSON.parse(stdout); } catch { throw new Error(`stdout is not JSON (exit ${code}):\n${stdout}\nstderr:\n${stderr}`); }
        },
      });
    });
  });
}

export interface StartedCli {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts the built CLI without waiting for it (to interrupt or kill it mid-run). */
export function startCli(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): StartedCli {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d) => { stderr += d; });
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { child, stderr: () => stderr, exited };
}

/**
 * A unique argument appended to a fixture's command line, so a test can ask the OS afterwards
 * whether any process it started survived (the fixtures ignore extra arguments).
 */
export function marker(): string {
  return `--hotpath-test-${randomUUID()}`;
}

/** PIDs of live processes whose command line contains `text` (via pgrep; excludes this process). */
export function processesWith(text: string): number[] {
  try {
    const out = execFileSync('pgrep', ['-f', '--', text], { encoding: 'utf8' });
    return out.split('\n').filter(Boolean).map(Number).filter((pid) => pid !== process.pid);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

export async function waitForNoProcesses(text: string, timeoutMs = 5000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let left = processesWith(text);
  while (left.length && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesWith(text);
  }
  return left;
}

/** Short load settings that keep integration tests quick on a 2-core machine. */
export const QUICK_LOAD = ['--duration', '2', '--warmup', '1', '--connections', '4'];
