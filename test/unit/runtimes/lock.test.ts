/**
 * The install lock of Hotpath's cache (src/core/runtimes/lock.ts; scripts/lib/cacheLock.js keeps the
 * same protocol): a lock always names its owner, an empty one left by a crash does not block, a dead
 * owner's lock is taken over by exactly one process, a live one is waited for.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource } from '../../../src/core/common/cancellation';
import { withDirLock } from '../../../src/core/runtimes/lock';

const ROOT = path.resolve(__dirname, '../../..');

/** The PID of a process that has exited (reused by another process only after the PID space wraps). */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).trim());
}

/**
 * A (this process) takes the lock and lets the paused taker B go on (the `proceed` flag); once B has
 * acted on what it saw (it writes `acted` when it looks at the lock again), holds it, or is gone, A's
 * lock must be intact and B not holding it; after A's release B takes it.
 */
async function holdWhileTakerGoesOn(lock: string, dir: string, bExited: Promise<unknown>, acted: string): Promise<void> {
  const flag = (name: string) => path.join(dir, name);
  await withDirLock(lock, async () => {
    fs.writeFileSync(flag('proceed'), '');
    let bGone = false;
    void bExited.then(() => { bGone = true; });
    while (!fs.existsSync(flag(acted)) && !fs.existsSync(flag('b-held')) && !bGone) await new Promise((r) => setTimeout(r, 10));
    assert.equal(fs.existsSync(flag('b-held')), false, 'B did not get the lock A holds');
    assert.deepEqual(fs.readdirSync(lock), [`owner-${process.pid}`], 'A\'s lock is intact');
  }, { timeoutMs: 10_000 });
  await bExited; // B takes the lock once A has released it
  assert.ok(fs.existsSync(flag('b-held')));
}

describe('the install lock', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-lock-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names its owner while held, and is gone after', async () => {
    const lock = path.join(dir, '.node-1.2.3.lock');
    await withDirLock(lock, async () => {
      assert.deepEqual(fs.readdirSync(lock), [`owner-${process.pid}`]);
    });
    assert.deepEqual(fs.readdirSync(dir), [], 'no lock, no leftover of its preparation');
  });

  it('an empty lock folder (a crash between creating it and naming the owner) does not block', async () => {
    const lock = path.join(dir, '.node-1.2.3.lock');
    fs.mkdirSync(lock);
    let ran = false;
    await withDirLock(lock, async () => { ran = true; }, { timeoutMs: 5000 });
    assert.ok(ran);
  });

  for (const layout of ['owner-<pid>', 'pid file (older Hotpath, test toolchain)'] as const) {
    it(`a dead owner's lock is taken over (${layout})`, async () => {
      const lock = path.join(dir, '.node-1.2.3.lock');
      const pid = deadPid();
      fs.mkdirSync(lock);
      if (layout === 'owner-<pid>') fs.writeFileSync(path.join(lock, `owner-${pid}`), '');
      fs.writeFileSync(path.join(lock, 'pid'), String(pid));
      let ran = false;
      await withDirLock(lock, async () => { ran = true; }, { timeoutMs: 5000 });
      assert.ok(ran);
    });
  }

  it('a live owner\'s lock is waited for (its PID told), cancellably', async () => {
    const lock = path.join(dir, '.node-1.2.3.lock');
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, `owner-${holder.pid}`), '');
      const cts = new CancellationTokenSource();
      let told: number | undefined;
      const waiting = withDirLock(lock, async () => 'ran', { token: cts.token, onWait: (pid) => { told = pid; cts.cancel(); } });
      await assert.rejects(waiting, /cancelled/);
      assert.equal(told, holder.pid);
      assert.ok(fs.existsSync(path.join(lock, `owner-${holder.pid}`)), 'the live owner\'s lock is untouched');
    } finally {
      holder.kill('SIGKILL');
    }
  });

  for (const layout of ['owner-<pid>', 'pid file (older Hotpath)'] as const) {
    it(`a taker that saw the dead owner (${layout}) does not remove the lock another process has taken since`, async function () {
      this.timeout(60_000);
      // The interleaving is forced: B pauses right after it read the lock's owner, A takes the lock over
      // and holds it, then B goes on with what it saw. A takeover that deletes "the lock" removes A's.
      const lock = path.join(dir, '.node-1.2.3.lock');
      const dead = deadPid();
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, layout === 'owner-<pid>' ? `owner-${dead}` : 'pid'), layout === 'owner-<pid>' ? '' : String(dead));
      const flag = (name: string) => path.join(dir, name);
      const taker = [
        "const fs = require('node:fs');",
        `const [lock, flag] = ${JSON.stringify([lock, dir])};`,
        `const pauseAt = ${JSON.stringify(layout === 'owner-<pid>' ? lock : path.join(lock, 'pid'))};`,
        'let reads = 0;',
        'let paused = false;',
        'const wait = (f) => { while (!fs.existsSync(`${flag}/${f}`)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); };',
        // Each look at the lock (its listing or its pid file) is counted; the one that reads the owner pauses until told.
        "for (const name of ['readdirSync', 'readFileSync']) {",
        '  const real = fs[name];',
        "  fs[name] = function (p, ...rest) { const r = real.call(this, p, ...rest); if (p === lock || p === `${lock}/pid`) { reads++; fs.writeFileSync(`${flag}/read-${reads}`, ''); if (p === pauseAt && !paused) { paused = true; fs.writeFileSync(`${flag}/paused`, ''); wait('proceed'); } } return r; };",
        '}',
        `require(${JSON.stringify(path.join(ROOT, 'src/core/runtimes/lock.ts'))}).withDirLock(lock, async () => fs.writeFileSync(\`\${flag}/b-held\`, ''));`,
      ].join('\n');
      const b = spawn(process.execPath, ['-r', 'tsx/cjs', '-e', taker], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
      const bExited = new Promise((r) => b.on('exit', r));
      try {
        while (!fs.existsSync(flag('paused'))) await new Promise((r) => setTimeout(r, 10));
        const seen = fs.readdirSync(dir).filter((n) => n.startsWith('read-')).length;
        await holdWhileTakerGoesOn(lock, dir, bExited, `read-${seen + 1}`);
      } finally {
        b.kill('SIGKILL');
      }
    });
  }

  for (const impl of ['src/core/runtimes/lock.ts', 'scripts/lib/cacheLock.js'] as const) {
    it(`a taker that removed the dead owner's file does not empty the lock another process renamed into place since (${impl})`, async function () {
      this.timeout(60_000);
      // The interleaving is forced: B removes the dead owner's file and pauses; the folder is empty now,
      // and on Linux a rename onto an empty folder succeeds, so A's prepared lock replaces it and A holds
      // it; then B goes on. A takeover that empties "the rest" of the folder deletes A's owner file
      // (the race a CI run caught as two holders at once). Deterministic: cannot fail by chance.
      const lock = path.join(dir, '.node-1.2.3.lock');
      const dead = deadPid();
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, `owner-${dead}`), '');
      const flag = (name: string) => path.join(dir, name);
      const start = impl === 'src/core/runtimes/lock.ts'
        ? `require(${JSON.stringify(path.join(ROOT, impl))}).withDirLock(lock, async () => fs.writeFileSync(\`\${flag}/b-held\`, ''));`
        : `require(${JSON.stringify(path.join(ROOT, impl))}).withLock(${JSON.stringify(dir)}, 'node-1.2.3', () => fs.writeFileSync(\`\${flag}/b-held\`, ''));`;
      const taker = [
        "const fs = require('node:fs');",
        `const [lock, flag, dead] = ${JSON.stringify([lock, dir, dead])};`,
        'const wait = (f) => { while (!fs.existsSync(`${flag}/${f}`)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5); };',
        'const realUnlink = fs.unlinkSync;',
        'let paused = false;',
        "fs.unlinkSync = function (p, ...rest) { const r = realUnlink.call(this, p, ...rest); if (p === `${lock}/owner-${dead}` && !paused) { paused = true; fs.writeFileSync(`${flag}/paused`, ''); wait('proceed'); } return r; };",
        "const realReaddir = fs.readdirSync;",
        "fs.readdirSync = function (p, ...rest) { const r = realReaddir.call(this, p, ...rest); if (paused && p === lock) fs.writeFileSync(`${flag}/looked`, ''); return r; };",
        start,
      ].join('\n');
      const b = spawn(process.execPath, ['-r', 'tsx/cjs', '-e', taker], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
      const bExited = new Promise((r) => b.on('exit', r));
      try {
        while (!fs.existsSync(flag('paused'))) await new Promise((r) => setTimeout(r, 10));
        assert.deepEqual(fs.readdirSync(lock), [], 'B removed the dead owner\'s file and paused');
        await holdWhileTakerGoesOn(lock, dir, bExited, 'looked');
      } finally {
        b.kill('SIGKILL');
      }
    });
  }

  it('processes racing to take over a dead owner\'s lock hold it one at a time (Hotpath\'s lock and the test toolchain\'s)', async function () {
    this.timeout(120_000);
    // Mutual exclusion is deterministic for a correct lock: this cannot fail by chance. (Taking over by
    // "read the PID, see it dead, delete the folder" lets a second taker delete the first one's new lock.)
    const lock = path.join(dir, '.node-1.2.3.lock');
    const dead = deadPid();
    fs.mkdirSync(lock);
    fs.writeFileSync(path.join(lock, 'pid'), String(dead));
    const log = path.join(dir, 'log');
    const go = path.join(dir, 'go');
    const worker = (toolchain: boolean) => [
      "const fs = require('node:fs');",
      `const [lock, log, go] = ${JSON.stringify([lock, log, go])};`,
      'const enter = () => fs.appendFileSync(log, `enter ${process.pid}\\n`);',
      'const exit = () => fs.appendFileSync(log, `exit ${process.pid}\\n`);',
      toolchain
        ? `const start = () => require(${JSON.stringify(path.join(ROOT, 'scripts/lib/cacheLock.js'))}).withLock(${JSON.stringify(dir)}, 'node-1.2.3', () => { enter(); Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100); exit(); });`
        : `const start = () => require(${JSON.stringify(path.join(ROOT, 'src/core/runtimes/lock.ts'))}).withDirLock(lock, async () => { enter(); await new Promise((r) => setTimeout(r, 100)); exit(); });`,
      "fs.writeFileSync(`${go}.ready.${process.pid}`, '');",
      'const poll = setInterval(() => { if (fs.existsSync(go)) { clearInterval(poll); start(); } }, 2);',
    ].join('\n');
    const count = 6;
    const children = Array.from({ length: count }, (_, i) => spawn(process.execPath, ['-r', 'tsx/cjs', '-e', worker(i % 2 === 1)], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] }));
    const done = Promise.all(children.map((c) => new Promise<number | null>((r) => c.on('exit', (code) => r(code)))));
    while (fs.readdirSync(dir).filter((n) => n.startsWith('go.ready.')).length < count) await new Promise((r) => setTimeout(r, 20));
    fs.writeFileSync(go, '');
    assert.deepEqual(await done, Array(count).fill(0));
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n');
    assert.equal(lines.length, 2 * count, lines.join('\n'));
    for (let i = 0; i < lines.length; i += 2) {
      assert.match(lines[i], /^enter (\d+)$/);
      assert.equal(lines[i + 1], lines[i].replace('enter', 'exit'), `one holder at a time:\n${lines.join('\n')}`);
    }
    assert.equal(fs.existsSync(lock), false);
  });
});
