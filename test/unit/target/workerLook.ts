/**
 * Run by test/unit/target/workerQuiet.test.ts in a child process: starts one worker (argv[2]: parked,
 * serving, busy or parked-stack), looks at it twice through an in-process inspector session
 * (NodeWorker, as Hotpath reaches an app's workers) and prints the looks as one JSON line.
 *
 * A child, not the mocha process: terminating a worker with a NodeWorker session attached crashed
 * Node 20 once (SIGSEGV of the whole unit-test process in CI, right after these tests, in the harness's
 * own tear-down). The answer is printed before any tear-down, and the process then exits without one.
 */
import * as inspector from 'node:inspector';
import { Worker } from 'node:worker_threads';
import { WORKER_STATE_EXPRESSION, type WorkerState } from '../../../src/core/inspector/workerQuiet';

const PARKED = `const { parentPort } = require('node:worker_threads');
const cell = new Int32Array(new SharedArrayBuffer(4));
function atomicsWaitLoop() { parentPort.postMessage('parking'); Atomics.wait(cell, 0, 0); }
atomicsWaitLoop();`;
// Serving: reports once its loop has idled after start-up (a 200 ms timer), so the looks see the loop
// waiting, not the end of the worker's start-up.
const SERVING = `const { parentPort } = require('node:worker_threads');
setInterval(() => {}, 1000); setTimeout(() => parentPort.postMessage('serving'), 200);`;
const BUSY = `const { parentPort, workerData } = require('node:worker_threads');
const stop = new Int32Array(workerData);
parentPort.postMessage('busy');
let n = 0; while (Atomics.load(stop, 0) === 0) n++;`;

/** Two looks at the worker, LOOK_GAP_MS apart (a parked worker is looked at until its wait began), and the app's stack settings after them. */
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
          await new Promise((r) => setTimeout(r, LOOK_GAP_MS));
          looks.push(await look());
          const stack = (await send('Runtime.evaluate', { expression: 'JSON.stringify({ limit: Error.stackTraceLimit, prepare: typeof Error.prepareStackTrace })', returnByValue: true })).result.result.value;
          resolve({ looks, stack: JSON.parse(stack) });
        } catch (err) { reject(err); }
      });
    });
    session.post('NodeWorker.enable', { waitForDebuggerOnStart: false });
  });
}

/**
 * Between the two looks. settle looks every 100 ms; here 300: a look's own dispatch in the worker counts
 * as loop activity, and on a loaded machine (CI, load average 13) one took 11 ms of a 100 ms gap — 10.9%,
 * just over the 10% quiet limit, for a loop that only waited. Over 300 ms that dispatch would have to
 * stall 30 ms to flip the verdict.
 */
const LOOK_GAP_MS = 300;

const SOURCES: Record<string, () => [string, SharedArrayBuffer?]> = {
  parked: () => [PARKED],
  serving: () => [SERVING],
  busy: () => [BUSY, new SharedArrayBuffer(4)],
  'parked-stack': () => [`Error.stackTraceLimit = 0; Error.prepareStackTrace = () => 'x'; ${PARKED}`],
};

const [source, workerData] = SOURCES[process.argv[2]]();
lookAt(source, workerData).then(
  (answer) => { process.stdout.write(`${JSON.stringify(answer)}\n`, () => process.exit(0)); },
  (err) => { console.error(err); process.exit(1); },
);
