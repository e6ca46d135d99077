/**
 * V8's signals of a process's worker threads, collected in the same run as the main thread's: one
 * collector per worker isolate (its own trace file; collector.ts startWorker), set up as each worker is
 * attached — before the warm-up for the workers already running, before its first line for a worker
 * started later. Read after Profiler.stop, one isolate at a time (V8's natives flag is the process's).
 */
import type { Disposable } from '../common/disposable';
import { errorMessage } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import type { CapturedProfile } from '../inspector/profilingRun';
import type { WorkerHandle, WorkerHub, WorkerSetup } from '../inspector/workerHub';
import { V8Collector } from './collector';
import type { V8RawSignals } from './types';

export class WorkerSignals implements Disposable {
  private readonly collectors = new Map<string, { collector: V8Collector; worker: WorkerHandle }>();
  private readonly setup: WorkerSetup;
  private constructor(private readonly main: V8Collector, private readonly hub: WorkerHub, private readonly logger: Logger) {
    this.setup = async (worker) => {
      const collector = await V8Collector.startWorker(this.main, worker.session, worker.info.workerId);
      this.collectors.set(worker.thread, { collector, worker });
    };
  }

  /** Starts collecting in every worker the hub has and will have. Resolves when the running ones are set up. */
  static async start(main: V8Collector, hub: WorkerHub, logger: Logger = silentLogger): Promise<WorkerSignals> {
    const signals = new WorkerSignals(main, hub, logger);
    await hub.use(signals.setup);
    return signals;
  }

  /**
   * Each worker's signals by thread label (as its profile is labelled), read after the main thread's
   * (which switched V8's tracing off for the whole process). A worker that exited keeps what it traced.
   */
  async finish(profiles: readonly CapturedProfile[], options: { targetGone?: boolean } = {}): Promise<Map<string, V8RawSignals>> {
    this.hub.stopUsing(this.setup);
    const out = new Map<string, V8RawSignals>();
    for (const [thread, { collector, worker }] of this.collectors) {
      try {
        const profile = profiles.find((p) => p.thread === thread)?.profile;
        out.set(thread, await collector.finish(profile, { targetGone: options.targetGone === true || worker.session.isDetached }));
      } catch (err) {
        this.logger.warn(`V8 signals of ${thread}: ${errorMessage(err)}`);
      }
    }
    return out;
  }

  /** Stops without results (errors, cancellation): natives off, trace files removed. */
  async abandon(): Promise<void> {
    this.hub.stopUsing(this.setup);
    for (const { collector } of this.collectors.values()) await collector.abandon();
  }

  dispose(): void {
    this.hub.stopUsing(this.setup);
  }
}
