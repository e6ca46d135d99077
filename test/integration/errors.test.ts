// test-lane: quick — core paths on this machine's Node, in seconds: part of `npm run test:quick`.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { APPS, marker, processesWith, QUICK_LOAD, runCli, waitForNoProcesses } from '../helpers/cli';

/** Each bad input: a clear message, a non-zero exit, and no process left behind (checked by PID). */
describe('bad input and interruptions', function () {
  this.timeout(120_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-err-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('app exits before listening: says so and shows its output', async () => {
    const tag = marker();
    const run = await runCli(['profile', ...QUICK_LOAD, '--out', dir, '--', 'node', path.join(APPS, 'crash-before-listen.js'), tag]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /exited with code 1 before it listened/);
    assert.match(run.stderr, /Missing DATABASE_URL/);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('app never listens: times out with advice', async () => {
    const tag = marker();
    const run = await runCli(['profile', ...QUICK_LOAD, '--ready-timeout', '2', '--out', dir, '--', 'node', path.join(APPS, 'never-listens.js'), tag]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /did not listen on a TCP port within 2 s/);
    assert.match(run.stderr, /--ready-timeout|--script/);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  describe('port already in use', () => {
    let blocker: http.Server;
    let port: number;
    before(async () => {
      blocker = http.createServer((_q, r) => r.end('blocker'));
      await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
      port = (blocker.address() as AddressInfo).port;
    });
    after(() => new Promise((r) => blocker.close(r)));

    it('when the app crashes with EADDRINUSE', async () => {
      const tag = marker();
      const run = await runCli(['profile', ...QUICK_LOAD, '--env', `PORT=${port}`, '--out', dir, '--', 'node', path.join(APPS, 'fixed-port.js'), tag]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`port ${port} is already in use`));
      assert.deepEqual(await waitForNoProcesses(tag), []);
    });

    it('when --port names a port another process already serves', async () => {
      const tag = marker();
      const run = await runCli(['profile', ...QUICK_LOAD, '--port', String(port), '--out', dir, '--', 'node', path.join(APPS, 'hot-server.js'), tag]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`Port ${port} is already in use before the app started`));
      assert.deepEqual(processesWith(tag), [], 'the app was not even started');
    });
  });

  it('inspector refused: the app closed its inspector', async () => {
    const tag = marker();
    const run = await runCli(['profile', ...QUICK_LOAD, '--out', dir, '--', 'node', path.join(APPS, 'closes-inspector.js'), tag]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /Could not connect to the app's inspector/);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('app crashes while being profiled: keeps the profile captured until then', async () => {
    // Chance of failing on a correct product: < 1e-6 — 1.5 s of requests that each run crunchBeforeCrash
    // for milliseconds before the crash: it is in hundreds of samples of the saved profile at any load.
    const tag = marker();
    const run = await runCli(['profile', '--duration', '4', '--warmup', '0', '--connections', '2', '--json', '--out', dir, '--', 'node', path.join(APPS, 'crash-mid-load.js'), tag], { timeoutMs: 60_000 });
    const doc = run.json();
    // Either the load still finished (a warning) or it failed outright (an error naming the saved file):
    // in both cases the profile up to the crash is on disk and holds the hot function.
    const saved = doc.error ? /saved at (\S+\.cpuprofile)/.exec(doc.error.message)?.[1] : doc.profilePath;
    if (doc.error) assert.match(doc.error.message, /while being profiled/);
    else assert.ok(doc.warnings.some((w: any) => w.code === 'TARGET_EXITED_DURING_PROFILE'), JSON.stringify(doc.warnings));
    assert.ok(saved && fs.existsSync(saved), `profile saved: ${saved}`);
    assert.match(fs.readFileSync(saved!, 'utf8'), /crunchBeforeCrash/);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });

  it('command not found', async () => {
    const run = await runCli(['profile', '--', 'definitely-not-a-command-hotpath']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /'definitely-not-a-command-hotpath' was not found on PATH/);
  });

  it('usage errors exit 2 and say what to do', async () => {
    const noCommand = await runCli(['profile']);
    assert.equal(noCommand.code, 2);
    assert.match(noCommand.stderr, /needs the command that starts your app after `--`/);
    const badNumber = await runCli(['profile', '--connections', 'lots', '--', 'node', 'x.js']);
    assert.equal(badNumber.code, 2);
    assert.match(badNumber.stderr, /--connections/);
  });

  for (const [label, content, pattern] of [
    ['empty', '', /empty/i],
    ['non-JSON', 'this is not json', /not JSON|JSON/i],
    ['truncated', '{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2', /truncated/i],
  ] as const) {
    it(`rejects a ${label} .cpuprofile with a clear message`, async () => {
      const file = path.join(dir, `${label}.cpuprofile`);
      fs.writeFileSync(file, content);
      const run = await runCli(['report', file]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, pattern);
      assert.match(run.stderr, new RegExp(path.basename(file).replace('.', '\\.')));
      const json = await runCli(['report', '--json', file]);
      assert.equal(json.json().error.code, 'PROFILE_INVALID');
    });
  }

  it('Ctrl-C mid-run stops the load and the app, exit 130', async () => {
    const tag = marker();
    let sent = false;
    const run = await runCli(['profile', '--duration', '20', '--warmup', '0', '--out', dir, '--', 'node', path.join(APPS, 'hot-server.js'), tag], {
      onSpawn: (child) => {
        // Interrupt once the load is running (the app is up and being profiled).
        const poll = setInterval(() => {
          if (processesWith(tag).length > 0 && !sent) {
            sent = true;
            setTimeout(() => { child.kill('SIGINT'); clearInterval(poll); }, 2500);
          }
        }, 100);
        child.on('exit', () => clearInterval(poll));
      },
    });
    assert.ok(sent, 'the app was started before the interrupt');
    assert.equal(run.code, 130, run.stderr);
    assert.match(run.stderr, /cancelled/);
    assert.deepEqual(await waitForNoProcesses(tag), []);
  });
});
