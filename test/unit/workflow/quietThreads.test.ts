import { strict as assert } from 'node:assert';
import { Worker } from 'node:worker_threads';
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

  // Chance of failing on a correct product: only if a thread of this test process keeps over 10% of a
  // core busy for 5 s with no 300 ms pause — V8's GC and compiler threads work in short bursts, and the
  // unit suite's workers are terminated by their own tests.
  it('with no thread working, it returns without giving up', async () => {
    const { lines, logger } = log();
    await waitForQuietThreads(process.pid, 5000, logger);
    assert.ok(!lines.some((l) => /still used CPU/.test(l)), JSON.stringify(lines));
  });
});
