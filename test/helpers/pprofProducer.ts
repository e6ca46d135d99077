/**
 * The pprof producer fixture (test/fixtures/apps/pprof-producer.js) run as a test needs it: a Node
 * process that must exit 0, and a wall profile recorded on "another machine" — the script run from a
 * folder that is gone afterwards, so the profile names paths this workspace does not have.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, ROOT } from './cli';

export const PRODUCER = path.join(APPS, 'pprof-producer.js');

/** Runs node with `args` in `cwd`; rejects with its stderr unless it exits 0 within 2 minutes. */
export function runNode(args: string[], cwd: string, node = process.execPath): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => { clearTimeout(timer); if (code === 0) resolve(); else reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`)); });
  });
}

/**
 * `@datadog/pprof`'s wall profile (with line numbers) of the producer run from `<tmp>/srv/apps`, written
 * to `out`; that folder is removed. Returns the path the profile names for the producer.
 */
export async function wallProfileFromAway(out: string): Promise<string> {
  const away = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-away-'));
  const deployed = path.join(away, 'srv', 'apps');
  fs.mkdirSync(deployed, { recursive: true });
  fs.copyFileSync(PRODUCER, path.join(deployed, 'pprof-producer.js'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(away, 'node_modules'));
  try {
    await runNode([path.join(deployed, 'pprof-producer.js'), 'datadog-wall', out], deployed);
  } finally {
    fs.rmSync(away, { recursive: true, force: true });
  }
  return path.join(deployed, 'pprof-producer.js');
}
