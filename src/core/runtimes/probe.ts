/**
 * `<binary> --version`, bounded in time: the binary runs as the leader of its own process group, and
 * one that has not answered in time is killed with whatever it started (SIGKILL to the group) and the
 * error says that it timed out. Every binary Hotpath asks goes through here: a `--node` path, the
 * PATH's node, a freshly installed one.
 */
import { spawn } from 'node:child_process';

export class VersionProbeError extends Error {
  constructor(message: string, readonly timedOut: boolean) {
    super(message);
  }
}

const MAX_OUTPUT = 4096;

export function askVersion(binary: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(binary, ['--version'], { detached: process.platform !== 'win32', stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    } catch (err) {
      return reject(new VersionProbeError(err instanceof Error ? err.message : String(err), false));
    }
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout = (stdout + d.toString('utf8')).slice(0, MAX_OUTPUT); });
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString('utf8')).slice(0, MAX_OUTPUT); });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { child.kill('SIGKILL'); }
    }, timeoutMs);
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    child.once('exit', (code, signal) => { exit = { code, signal }; });
    child.once('error', (err) => { clearTimeout(timer); reject(new VersionProbeError(err.message, false)); });
    // 'close': the output is complete (a process it left holding the pipe is ended by the timeout).
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const { code: c, signal: s } = exit ?? { code, signal };
      if (timedOut) return reject(new VersionProbeError(`it did not answer \`--version\` within ${Math.round(timeoutMs / 1000)} s, so it was stopped`, true));
      if (c === 0) return resolve(stdout.trim());
      reject(new VersionProbeError(`\`--version\` ${s ? `was killed by ${s}` : `exited with code ${c}`}${stderr.trim() ? `: ${stderr.trim().split('\n')[0].slice(0, 200)}` : ''}`, false));
    });
  });
}
