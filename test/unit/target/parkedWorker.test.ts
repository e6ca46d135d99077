import { strict as assert } from 'node:assert';
import * as inspector from 'node:inspector';
import { Worker } from 'node:worker_threads';
import { PARKED_IN_ATOMICS_WAIT } from '../../../src/core/inspector/workerHub';

// WorkerHub.settle lets V8's set-up go ahead once every worker is done starting up: a pool's idle thread
// never turns its event loop (it waits in Atomics.wait), so the hub asks the worker's own stack. Real
// workers, reached as Hotpath reaches them (NodeWorker over the inspector); no timing is asserted: each
// worker is in its state (parked, serving its loop, busy) before it is asked.

const PARKED = `const { parentPort } = require('node:worker_threads');
const cell = new Int32Array(new SharedArrayBuffer(4));
function atomicsWaitLoop() { parentPort.postMessage('parking'); Atomics.wait(cell, 0, 0); }
atomicsWaitLoop();`;
const SERVING = `const { parentPort } = require('node:worker_threads');
setInterval(() => {}, 1000); parentPort.postMessage('serving');`;
const BUSY = `const { parentPort, workerData } = require('node:worker_threads');
const stop = new Int32Array(workerData);
parentPort.postMessage('busy');
let n = 0; while (Atomics.load(stop, 0) === 0) n++;`;

function askWorker(source: string, workerData?: SharedArrayBuffer): Promise<{ parked: unknown; stack: { limit: number; prepare: string } }> {
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
    session.on('NodeWorker.attachedToWorker', ({ params }: any) => {
      const send = (method: string, p: object) => new Promise<any>((r) => {
        const i = ++id;
        pending.set(i, r);
        session.post('NodeWorker.sendMessageToWorker', { sessionId: params.sessionId, message: JSON.stringify({ id: i, method, params: p }) });
      });
      worker.once('message', async () => {
        try {
          // The worker reported its state just before entering it; a parked worker is asked until the
          // wait began (a handful of asks at most), the others once their loop or work is under way.
          let parked: unknown = false;
          for (let i = 0; i < 200 && parked !== true; i++) {
            parked = (await send('Runtime.evaluate', { expression: PARKED_IN_ATOMICS_WAIT, returnByValue: true })).result?.result?.value;
            if (!/Atomics\.wait/.test(source)) break;
          }
          const stack = (await send('Runtime.evaluate', { expression: 'JSON.stringify({ limit: Error.stackTraceLimit, prepare: typeof Error.prepareStackTrace })', returnByValue: true })).result.result.value;
          resolve({ parked, stack: JSON.parse(stack) });
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

describe('a worker parked in Atomics.wait (WorkerHub.settle)', function () {
  this.timeout(20_000);

  it('is recognised from the stack an evaluation interrupting it sees', async () => {
    assert.equal((await askWorker(PARKED)).parked, true);
  });

  it('a worker serving its event loop, or busy running code, is not parked', async () => {
    assert.equal((await askWorker(SERVING)).parked, false);
    assert.equal((await askWorker(BUSY, new SharedArrayBuffer(4))).parked, false);
  });

  it('leaves the app\'s stack settings as they were', async () => {
    const { stack } = await askWorker(`Error.stackTraceLimit = 0; Error.prepareStackTrace = () => 'x'; ${PARKED}`);
    assert.deepEqual(stack, { limit: 0, prepare: 'function' });
  });
});
