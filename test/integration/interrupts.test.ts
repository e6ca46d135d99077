/**
 * However Hotpath is stopped — Ctrl-C twice, SIGTERM, SIGHUP, or SIGKILL of the CLI itself — no process
 * of the target is left, V8's tracing is not left running (no trace file of the app survives), and the
 * run's temporary directory is gone (after SIGKILL: removed by the next run). Every check is by the
 * PIDs this test started (a unique marker on the command line), so tests running beside it do not count.
 *
 * test-lane: quick — core paths on this machine's Node, in seconds: part of `npm run test:quick`.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, processesWith, runCli, startCli, waitForNoProcesses } from '../helpers/cli';
import { traceFileFor } from '../../src/core/v8/flags';

/**
 * Waits until the app (found by its marker) runs and the load has been on for a moment. The interrupt
 * tests assert what is left after the signal, whenever in the run it comes: the 1.5 s only makes it come
 * while the load and V8's tracing are on, which a 30 s run guarantees on any machine.
 */
async function whenProfiling(tag: string, stderr: () => string): Promise<number[]> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (processesWith(tag).length && /[Pp]rofiling/.test(stderr())) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 1500));
  const pids = processesWith(tag);
  assert.ok(pids.length, `the app started: ${stderr()}`);
  return pids;
}

/** Report directories whose owner file names `pid`. */
function dirsOwnedBy(pid: number): string[] {
  return fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('hotpath-target-')).map((n) => path.join(os.tmpdir(), n))
    .filter((d) => { try { return fs.readFileSync(path.join(d, 'owner.pid'), 'utf8').trim() === String(pid); } catch { return false; } });
}

const PROFILE_ARGS = (tag: string) => ['profile', '--duration', '30', '--warmup', '0', '--connections', '2', '--out', fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-int-')), '--', 'node', path.join(APPS, 'hot-server.js'), tag];

describe('interrupts: nothing is left running', function () {
  this.timeout(120_000);

  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`${signal} twice: exit 130 at once, no process, no trace file, no temporary directory`, async () => {
      const tag = marker();
      const cli = startCli(PROFILE_ARGS(tag));
      const pids = await whenProfiling(tag, cli.stderr);
      cli.child.kill(signal);
      await new Promise((r) => setTimeout(r, 150));
      cli.child.kill(signal);
      const { code } = await cli.exited;
      assert.equal(code, 130, cli.stderr());
      assert.deepEqual(await waitForNoProcesses(tag, 5000), [], 'the app and its tree are gone');
      for (const pid of pids) assert.equal(fs.existsSync(traceFileFor(pid)), false, `no V8 trace file of PID ${pid} left`);
      assert.deepEqual(dirsOwnedBy(cli.child.pid!), [], 'the run\'s temporary directory is removed');
    });
  }

  it('SIGKILL of the CLI: the app notices, switches tracing off and stops; the next run removes what was left', async () => {
    const tag = marker();
    const cli = startCli(PROFILE_ARGS(tag));
    const pids = await whenProfiling(tag, cli.stderr);
    cli.child.kill('SIGKILL');
    await cli.exited;
    assert.deepEqual(await waitForNoProcesses(tag, 15_000), [], 'the orphaned app stopped itself (preload watchdog)');
    // The next run cleans up after the killed one: its report directory and the app's trace file.
    const next = await runCli(['profile', '--script', '--json', '--out', fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-int-')), '--', 'node', '-e', 'let a = 0; for (let i = 0; i < 1e6; i++) a += i']);
    assert.equal(next.code, 0, next.stderr);
    assert.deepEqual(dirsOwnedBy(cli.child.pid!), [], 'the killed run\'s temporary directory was removed');
    for (const pid of pids) assert.equal(fs.existsSync(traceFileFor(pid)), false, `no trace file of PID ${pid}`);
  });
});

describe('readiness fails fast on the wrong port', function () {
  this.timeout(60_000);

  it('--port naming a port the app does not use: fails within seconds, naming the port it does use', async () => {
    const tag = marker();
    const started = Date.now();
    const run = await runCli(['profile', '--port', '1', '--duration', '1', '--warmup', '0', '--', 'node', path.join(APPS, 'hot-server.js'), tag]);
    const elapsed = Date.now() - started;
    assert.equal(run.code, 1);
    assert.match(run.stderr, /listens on port \d+, not on port 1 \(from --port or --url\).*Pass --port \d+/s);
    // The readiness timeout is 30 s; failing fast means well before it (generous bound for a busy machine).
    // Chance of failing on a correct product: < 1e-6 — the app listens on its own port within a second or
    // two of starting even at load average 15 (the whole test took ~4 s in CI there), 21 s short of this.
    assert.ok(elapsed < 25_000, `failed after ${elapsed} ms`);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });
});
