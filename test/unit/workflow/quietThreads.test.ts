import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadCpu } from '../../../src/core/measure/threadCpu';
import { waitForQuietThreads } from '../../../src/core/measure/quietThreads';

// Before V8's set-up, Hotpath waits until the app's threads other than its main one are quiet (a worker
// still starting up, not yet announced by the inspector). This process stands in for the app: a worker
// spinning the whole time is never quiet; once it is gone, the threads are. No time is asserted: each
// case ends in the state it checks (the wait gave up, or found quiet), said by the log line.
const log = () => {
  const lines: string[] = [];
  return { lines, logger: { trace: () => {}, info: (m: string) => lines.push(m), warn: () => {}, error: () => {} } };
};

describe('the app\'s other threads quiet (measure/quietThreads.ts)', function () {
  this.timeout(20_000);
  before(function () { if (process.platform !== 'linux') this.skip(); });

  it('a thread spinning through the whole wait: it gives up after maxMs and says so', async () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker('const { workerData } = require("node:worker_threads"); const s = new Int32Array(workerData); while (Atomics.load(s, 0) === 0);', { eval: true, workerData: stop.buffer });
    try {
      await new Promise((r) => worker.once('online', r));
      const { lines, logger } = log();
      await waitForQuietThreads(process.pid, 800, logger);
      assert.ok(lines.some((l) => /still used CPU after \d+ ms/.test(l)), JSON.stringify(lines));
    } finally {
      Atomics.store(stop, 0, 1);
      await worker.terminate();
    }
  });

  // A busy machine: the spinning worker at the lowest priority (nice 19, this thread only) beside a
  // process burning each core, so it runs ~1–2% of a core — less than the 10% a quiet thread may use.
  // It still wants the CPU all the time: it waits on a run queue whenever it is not running, and that
  // wait counts. CI saw a spinning thread called quiet when the lane starved it (before the wait counted).
  // Chance of failing on a correct product: 0 — a thread that never sleeps is running or waiting to run
  // for the whole of every interval, whatever the machine does.
  it('a spinning thread starved of CPU still counts as working: it waited to run', async () => {
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const burners: ChildProcess[] = [];
    const worker = new Worker('const { workerData } = require("node:worker_threads"); const s = new Int32Array(workerData); while (Atomics.load(s, 0) === 0);', { eval: true, workerData: stop.buffer });
    try {
      await new Promise((r) => worker.once('online', r));
      // The worker's thread: the one of this process that uses a core now (the others sleep).
      const a = threadCpu(process.pid)!;
      const spinUntil = Date.now() + 200;
      while (Date.now() < spinUntil) await new Promise((r) => setTimeout(r, 20));
      const b = threadCpu(process.pid)!;
      const [tid] = [...b].filter(([t]) => t !== String(process.pid)).sort(([t1, x], [t2, y]) => (y.us - (a.get(t2)?.us ?? 0)) - (x.us - (a.get(t1)?.us ?? 0)))[0];
      os.setPriority(Number(tid), 19);
      for (let i = 0; i < os.availableParallelism(); i++) burners.push(spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
      const { lines, logger } = log();
      await waitForQuietThreads(process.pid, 800, logger);
      assert.ok(lines.some((l) => /still used CPU after \d+ ms/.test(l)), JSON.stringify(lines));
    } finally {
      // Stopped and gone before the test ends (no burner left to slow the suites after it).
      await Promise.all(burners.map((p) => new Promise((r) => { if (p.exitCode !== null || p.signalCode !== null) r(undefined); else { p.once('exit', r); p.kill('SIGKILL'); } })));
      Atomics.store(stop, 0, 1);
      await worker.terminate();
    }
  });

  // Chance of failing on a correct product: only if a thread of this test process keeps over 10% of a
  // core busy for 5 s with no 300 ms pause — V8's GC and compiler threads work in short bursts, and the
  // unit suite's workers are terminated by their own tests.
  it('with no thread working, it returns without giving up', async () => {
    const { lines, logger } = log();
    await waitForQuietThreads(process.pid, 5000, logger);
    assert.ok(!lines.some((l) => /still used CPU/.test(l)), JSON.stringify(lines));
  });
});
