import { strict as assert } from 'node:assert';
import * as inspector from 'node:inspector';
import { Worker } from 'node:worker_threads';
import { isQuiet, WORKER_STATE_EXPRESSION, type WorkerState } from '../../../src/core/inspector/workerQuiet';

// WorkerHub.settle lets V8's set-up go ahead once every worker is quiet. Real workers, reached as Hotpath
// reaches them (NodeWorker over the inspector). No timing is asserted: each worker reports its state
// (parked, serving its loop, busy) before it is looked at, and the looks are 100 ms apart, as settle's.

const PARKED = `const { parentPort } = require('node:worker_threads');
const cell = new Int32Array(new SharedArrayBuffer(4));
function atomicsWaitLoop() { parentPort.postMessage('parking'); Atomics.wait(cell, 0, 0); }
atomicsWaitLoop();`;
const SERVING = `const { parentPort } = require('node:worker_threads');
setInterval(() => {}, 1000); setImmediate(() => parentPort.postMessage('serving'));`;
const BUSY = `const { parentPort, workerData } = require('node:worker_threads');
const stop = new Int32Array(workerData);
parentPort.postMessage('busy');
let n = 0; while (Atomics.load(stop, 0) === 0) n++;`;

/** Two looks at the worker, 100 ms apart (a parked worker is looked at until its wait began), and the app's stack settings after them. */
function lookAt(source: string, workerData?: SharedArrayBuffer): Promise<{ looks: WorkerState[]; stack: { limit: number; prepare: string } }> {
  return new Promise((resolve, reject) => {
    const session = new inspector.Session();
    session.connect();
    let id = 0;
    const pending = new Map<number, (m: any) => void>();
    session.on('NodeWorker.receivedMessageFromWorker', ({ params }: any) => {
      const m = JSON.parse(params.message);
      pending.get(m.id)?.(m);
    });
    const worker = new Worker(source, { eval: true, workerData });
    const reported = new Promise((r) => worker.once('message', r)); // the worker's state, possibly before it is attached
    session.on('NodeWorker.attachedToWorker', ({ params }: any) => {
      if (params.workerInfo.title !== `[worker ${worker.threadId}]`) return; // another test's, still ending
      const send = (method: string, p: object) => new Promise<any>((r) => {
        const i = ++id;
        pending.set(i, r);
        session.post('NodeWorker.sendMessageToWorker', { sessionId: params.sessionId, message: JSON.stringify({ id: i, method, params: p }) });
      });
      const look = async () => (await send('Runtime.evaluate', { expression: WORKER_STATE_EXPRESSION, returnByValue: true })).result.result.value as WorkerState;
      void reported.then(async () => {
        try {
          const looks = [await look()];
          // The message is posted just before the wait: a handful of looks at most until it began.
          for (let i = 0; i < 200 && source === PARKED && !looks[0][0]; i++) looks[0] = await look();
          await new Promise((r) => setTimeout(r, 100));
          looks.push(await look());
          const stack = (await send('Runtime.evaluate', { expression: 'JSON.stringify({ limit: Error.stackTraceLimit, prepare: typeof Error.prepareStackTrace })', returnByValue: true })).result.result.value;
          resolve({ looks, stack: JSON.parse(stack) });
        } catch (err) { reject(err); } finally {
          if (workerData) Atomics.store(new Int32Array(workerData), 0, 1);
          await worker.terminate();
          session.disconnect();
        }
      });
    });
    session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  });
}

describe('a quiet worker (WorkerHub.settle before V8\'s set-up)', function () {
  this.timeout(20_000);

  it('parked in Atomics.wait: told from the stack an evaluation interrupting it sees, quiet at once', async () => {
    const { looks } = await lookAt(PARKED);
    assert.equal(looks[0][0], true);
    assert.equal(isQuiet(undefined, looks[0]), true);
  });

  it('serving its event loop (a timer): quiet over 100 ms, not parked', async () => {
    const { looks } = await lookAt(SERVING);
    assert.equal(looks[1][0], false);
    assert.ok(looks[1][1] > looks[0][1], `its loop idled: ${JSON.stringify(looks)}`);
    assert.equal(isQuiet(looks[0], looks[1]), true, JSON.stringify(looks));
  });

  it('busy running code: neither parked nor quiet', async () => {
    const { looks } = await lookAt(BUSY, new SharedArrayBuffer(4));
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
    const { stack } = await lookAt(`Error.stackTraceLimit = 0; Error.prepareStackTrace = () => 'x'; ${PARKED}`);
    assert.deepEqual(stack, { limit: 0, prepare: 'function' });
  });
});
