/**
 * The worker threads of one process, over its main inspector session (the `NodeWorker` domain): each
 * worker gets one WorkerSession, shared by everything that works on workers — V8's signals from before
 * the warm-up, the CPU profiler from the measured window on. A worker that starts later waits (Node's
 * waitForDebuggerOnStart) until every user has set it up, so nothing it runs is missed. A worker the app
 * created before the hub attached but whose thread starts only now (a pool constructed just before the
 * server listens) does not wait: with `quietMs`, its set-ups and any work queued after it wait until it
 * is quiet (workerQuiet.ts), at most that long, since V8's set-up must not run while it starts up.
 */
import { type Disposable, DisposableStore } from '../common/disposable';
import { errorMessage } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import { isQuiet, WORKER_STATE_EXPRESSION, type WorkerState } from './workerQuiet';
import type { CdpClient } from './cdpClient';
import { WorkerSession, type WorkerInfo } from './workerSession';

export interface WorkerHandle {
  session: WorkerSession;
  info: WorkerInfo;
  /** `worker 2 (pool.js)`: how hotspots and saved files name its thread. */
  thread: string;
}

/** `worker <id> (<file>)`: the file is the worker's script, or its title when it has none. */
export function workerLabel(info: WorkerInfo): string {
  const file = info.url ? info.url.replace(/^file:\/\//, '').split('/').pop() : info.title;
  return `worker ${info.workerId}${file ? ` (${file})` : ''}`;
}

export type WorkerSetup = (worker: WorkerHandle) => Promise<void>;

export class WorkerHub implements Disposable {
  private readonly subs = new DisposableStore();
  private readonly sessions = new Map<string, WorkerHandle>();
  private readonly setups: WorkerSetup[] = [];
  /** Setups run one at a time, across workers: some (V8's trace file per isolate) set process-wide flags. */
  private queue: Promise<void> = Promise.resolve();
  /** What ran on each worker: a worker attached while a user registers must not be set up twice. */
  private readonly done = new WeakMap<WorkerHandle, Set<WorkerSetup>>();
  /** Workers that started after the hub attached and wait until release() (see start's `hold`). */
  private held: WorkerHandle[] | undefined;
  /** Wait this long at most for a running worker to be quiet before its set-ups (start's `quietMs`). */
  private quietMs: number | undefined;
  private disposed = false;

  private constructor(private readonly client: CdpClient, private readonly logger: Logger) {}

  /**
   * Attaches to the process's workers, those running now and those it starts later. Never throws.
   * `hold`: a worker that starts from now on waits, after its set-ups, until release() — so workers
   * that appear while the users register are set up by all of them before they run.
   */
  static async start(client: CdpClient, logger: Logger = silentLogger, options: { hold?: boolean; quietMs?: number } = {}): Promise<WorkerHub> {
    const hub = new WorkerHub(client, logger);
    if (options.hold) hub.held = [];
    hub.quietMs = options.quietMs;
    hub.subs.add(client.onEvent('NodeWorker.attachedToWorker', (event) => hub.attached(event)));
    hub.subs.add(client.onEvent('NodeWorker.receivedMessageFromWorker', ({ sessionId, message }) => hub.sessions.get(sessionId)?.session.handleMessage(message)));
    hub.subs.add(client.onEvent('NodeWorker.detachedFromWorker', ({ sessionId }) => hub.sessions.get(sessionId)?.session.handleDetached()));
    // NodeWorker exists on every supported Node, but a failure must not stop the main thread's work.
    // Node announces the workers already running before it answers enable.
    await client.trySend('NodeWorker.enable', { waitForDebuggerOnStart: true });
    await hub.queue;
    return hub;
  }

  get workers(): WorkerHandle[] { return [...this.sessions.values()]; }

  /** Waits (until `deadline`) until the worker is quiet (workerQuiet.ts); a worker still busy then is left as it is. */
  private async settleOne(w: WorkerHandle, deadline: number): Promise<void> {
    const started = Date.now();
    let before: WorkerState | undefined;
    while (Date.now() < deadline && !w.session.isDetached) {
      const r = await w.session.trySend<{ result?: { value?: unknown } }>('Runtime.evaluate', { expression: WORKER_STATE_EXPRESSION, returnByValue: true, silent: true });
      const now = r?.result?.value;
      if (!Array.isArray(now)) return; // a worker that cannot be asked (exiting): nothing to wait for
      if (isQuiet(before, now as WorkerState)) {
        this.logger.info(`${w.thread}: quiet after ${Date.now() - started} ms (${now[0] ? 'parked in Atomics.wait' : 'its event loop idle'})`);
        return;
      }
      before = now as WorkerState;
      await new Promise((resolve) => setTimeout(resolve, 100).unref());
    }
    this.logger.info(`${w.thread}: still running code after ${Date.now() - started} ms; V8's set-up goes ahead`);
  }

  /** Runs `work` between worker set-ups, never during one (e.g. switching process-wide V8 flags). */
  runBetween<T>(work: () => Promise<T>): Promise<T> {
    return this.serial(work);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.then(() => undefined, () => undefined);
    return next;
  }

  private attached({ sessionId, workerInfo, waitingForDebugger }: { sessionId: string; workerInfo: WorkerInfo; waitingForDebugger: boolean }): void {
    if (this.disposed) return;
    const handle: WorkerHandle = { session: new WorkerSession(this.client, sessionId, workerInfo), info: workerInfo, thread: workerLabel(workerInfo) };
    this.sessions.set(sessionId, handle);
    // A running worker is watched from now on, beside the others (each up to quietMs); what is queued waits for it.
    const quiet = !waitingForDebugger && this.quietMs !== undefined ? this.settleOne(handle, Date.now() + this.quietMs) : undefined;
    void this.serial(async () => {
      try {
        await quiet;
        for (const setup of [...this.setups]) await this.run(setup, handle);
      } finally {
        // Always let it run (now, or at release()): a worker left waiting would hang the app.
        if (waitingForDebugger && this.held) this.held.push(handle);
        else if (waitingForDebugger) await handle.session.trySend('Runtime.runIfWaitingForDebugger');
      }
    });
  }

  /** Lets the workers held since start() run (after every set-up registered so far); later ones run at once. Idempotent. */
  release(): Promise<void> {
    return this.serial(async () => {
      const held = this.held ?? [];
      this.held = undefined;
      for (const w of held) await w.session.trySend('Runtime.runIfWaitingForDebugger');
    });
  }

  private async run(setup: WorkerSetup, handle: WorkerHandle): Promise<void> {
    let done = this.done.get(handle);
    if (!done) this.done.set(handle, (done = new Set()));
    if (done.has(setup)) return;
    done.add(setup);
    try { await setup(handle); } catch (err) { this.logger.warn(`Setting up ${handle.thread} failed: ${errorMessage(err)}`); }
  }

  /**
   * Runs `setup` on every worker attached so far (resolves when they are done) and on each worker that
   * starts from now on, before it runs. The returned promise never rejects: a setup's failure is logged.
   */
  use(setup: WorkerSetup): Promise<void> {
    this.setups.push(setup);
    const existing = this.workers;
    return this.serial(async () => { for (const w of existing) await this.run(setup, w); });
  }

  /** Stops setting up new workers (those attached keep their sessions until the connection closes). */
  stopUsing(setup: WorkerSetup): void {
    const i = this.setups.indexOf(setup);
    if (i >= 0) this.setups.splice(i, 1);
  }

  /** Call release() first: a held worker whose session is gone could not be let run. */
  dispose(): void {
    this.disposed = true;
    this.subs.dispose();
    for (const w of this.sessions.values()) w.session.dispose();
    this.sessions.clear();
  }
}
