import { strict as assert } from 'node:assert';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { isQuiet, type WorkerState } from '../../../src/core/inspector/workerQuiet';

// WorkerHub.settle lets V8's set-up go ahead once every worker is quiet. Real workers, reached as Hotpath
// reaches them (NodeWorker over the inspector). No timing is asserted: each worker reports its state
// (parked, serving its loop, busy) before it is looked at, and the looks are 300 ms apart (settle's are
// 100 ms; workerLook.ts says why the test's are longer).
// The workers and the session live in a child process (workerLook.ts says why).

const ROOT = path.resolve(__dirname, '../../..');

/** The child's two looks at one worker, and the app's stack settings after them. */
function lookAt(kind: 'parked' | 'serving' | 'busy' | 'parked-stack'): Promise<{ looks: WorkerState[]; stack: { limit: number; prepare: string } }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-r', 'tsx/cjs', path.join(__dirname, 'workerLook.ts'), kind], { cwd: ROOT, encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      let answer;
      try { answer = JSON.parse(line); } catch { /* no answer */ }
      if (!answer) return reject(new Error(`the child looking at a ${kind} worker gave no answer: ${err?.message ?? ''}\n${stderr}`));
      // The answer is whole: an abnormal end after it is Node's worker tear-down, not the product (logged).
      if (err) console.log(`      # the child exited abnormally after its answer (${err.message.split('\n')[0]})`);
      resolve(answer);
    });
  });
}

describe('a quiet worker (WorkerHub.settle before V8\'s set-up)', function () {
  this.timeout(20_000);

  it('parked in Atomics.wait: told from the stack an evaluation interrupting it sees, quiet at once', async () => {
    const { looks } = await lookAt('parked');
    assert.equal(looks[0][0], true);
    assert.equal(isQuiet(undefined, looks[0]), true);
  });

  it('serving its event loop (a timer): quiet between two looks, not parked', async () => {
    // Chance of failing on a correct product: below 1 in 1,000 — the loop has idled since its start-up
    // before the first look, and between the looks it only wakes for the second look's evaluation; that
    // wake-up would have to take 30 ms (10% of the gap) of wall time. Seen once at 11 ms of a 100 ms gap
    // (load average 13, the worker still finishing its start-up); at 300 ms it would need ~3× that stall.
    const { looks } = await lookAt('serving');
    assert.equal(looks[1][0], false);
    assert.ok(looks[1][1] > looks[0][1], `its loop idled: ${JSON.stringify(looks)}`);
    assert.equal(isQuiet(looks[0], looks[1]), true, JSON.stringify(looks));
  });

  it('busy running code: neither parked nor quiet', async () => {
    const { looks } = await lookAt('busy');
    assert.equal(looks[1][0], false);
    assert.equal(isQuiet(looks[0], looks[1]), false, JSON.stringify(looks));
  });

  it('one look is not enough unless parked; a loop that neither idled nor ran (not started) is not quiet', () => {
    assert.equal(isQuiet(undefined, [false, 500, 10]), false);
    assert.equal(isQuiet([false, 0, 0], [false, 0, 0]), false);
    assert.equal(isQuiet([false, 100, 50], [false, 190, 60]), true);
    assert.equal(isQuiet([false, 100, 50], [false, 150, 100]), false);
    assert.equal(isQuiet([false, -1, -1], [false, -1, -1]), false);
  });

  it('leaves the app\'s stack settings as they were', async () => {
    const { stack } = await lookAt('parked-stack');
    assert.deepEqual(stack, { limit: 0, prepare: 'function' });
  });
});
