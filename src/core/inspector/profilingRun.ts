import { type Disposable, DisposableStore } from '../common/disposable';
import { errorMessage } from '../common/errors';
import { EventEmitter } from '../common/events';
import { type Logger, silentLogger } from '../common/logger';
import type { CdpClient, CdpSession } from './cdpClient';
import { WorkerHub, type WorkerHandle, type WorkerSetup } from './workerHub';

/** A CPU profile as Profiler.stop returns it (the .cpuprofile file format). */
export interface RawCpuProfile { nodes: unknown[]; startTime: number; endTime: number; samples?: number[]; timeDeltas?: number[] }

export interface CapturedProfile {
  /** 'main', or 'worker <id> (<file>)' so hotspots can be labelled with their thread. */
  thread: string;
  pid: number;
  profile: RawCpuProfile;
  /** The thread or process ended before the planned stop; this is what was captured until then. */
  partial: boolean;
  /** sourceMapURL per script URL as V8 saw them (in-memory maps of tsx & co.), for scripts in the profile. */
  sourceMapUrls?: Record<string, string>;
}

export interface ProfilingOptions {
  samplingIntervalMicros: number;
  /** Profile worker threads too, through the NodeWorker domain (a hub shared with V8's signals, or one of its own). */
  workers?: boolean | WorkerHub;
  logger?: Logger;
}

/**
 * Asks V8 for the source map of each script in the profile. Debugger.enable replays scriptParsed for
 * every loaded script before it answers; it runs only after the profiler stopped, so it costs the
 * measurement nothing. Best effort: a profile without maps is still a profile.
 */
async function sourceMapUrlsOf(session: CdpSession, profile: RawCpuProfile): Promise<Record<string, string> | undefined> {
  const urls = new Set<string>();
  for (const node of profile.nodes as Array<{ callFrame?: { url?: string } }>) {
    const url = node.callFrame?.url;
    if (url && !url.startsWith('node:')) urls.add(url);
  }
  if (urls.size === 0) return undefined;
  const found: Record<string, string> = {};
  const sub = session.onEvent('Debugger.scriptParsed', ({ url, sourceMapURL }) => {
    if (sourceMapURL && urls.has(url)) found[url] = sourceMapURL;
  });
  try {
    if (!(await session.trySend('Debugger.enable'))) return undefined;
    await session.trySend('Debugger.disable');
  } finally {
    sub.dispose();
  }
  return Object.keys(found).length ? found : undefined;
}

/** One thread's profiler: started once, stopped once, result kept. */
class ThreadProfiler {
  private result: Promise<CapturedProfile | undefined> | undefined;
  constructor(readonly session: CdpSession, readonly thread: string, readonly pid: number, private readonly logger: Logger) {}

  async start(intervalMicros: number): Promise<void> {
    await this.session.send('Profiler.enable');
    try {
      await this.session.send('Profiler.setSamplingInterval', { interval: intervalMicros });
    } catch (err) {
      // A profile from before the warm-up runs already (CodeMapKeeper): its profiler has this interval.
      if (!/when profiling/i.test(errorMessage(err))) throw err;
    }
    await this.session.send('Profiler.start');
  }

  stop(partial: boolean): Promise<CapturedProfile | undefined> {
    this.result ??= this.session.send<{ profile: RawCpuProfile }>('Profiler.stop').then(
      async ({ profile }) => ({ thread: this.thread, pid: this.pid, profile, partial, sourceMapUrls: await sourceMapUrlsOf(this.session, profile) }),
      (err) => { this.logger.warn(`No profile from ${this.thread}: ${errorMessage(err)}`); return undefined; });
    return this.result;
  }
}

/**
 * A profiling run over one process's inspector, with a lifetime of its own: start() returns the
 * handle, stop() collects every thread's profile once. If the process exits or crashes first, Node
 * keeps it alive while a debugger is attached ("Waiting for the debugger to disconnect"), and we
 * collect the profile at that moment, so a crash mid-profile keeps what was captured.
 */
export class ProfilingRun implements Disposable {
  private readonly subs = new DisposableStore();
  private readonly threads: ThreadProfiler[] = [];
  private hub: WorkerHub | undefined;
  private ownHub: WorkerHub | undefined;
  private setup: WorkerSetup | undefined;
  private readonly endedEmitter = new EventEmitter<void>();
  /** Fires when the target's main context is gone and profiles were collected without stop(). */
  readonly onEnded = this.endedEmitter.event;
  private collected: Promise<CapturedProfile[]> | undefined;
  private defaultContextId: number | undefined;
  readonly startedAt = Date.now();

  private constructor(private readonly client: CdpClient, readonly pid: number, private readonly options: ProfilingOptions, private readonly logger: Logger) {}

  static async start(client: CdpClient, pid: number, options: ProfilingOptions): Promise<ProfilingRun> {
    const run = new ProfilingRun(client, pid, options, options.logger ?? silentLogger);
    await run.begin();
    return run;
  }

  private async begin(): Promise<void> {
    const { client } = this;
    this.subs.add(client.onEvent('Runtime.executionContextCreated', ({ context }) => {
      if (context?.auxData?.isDefault !== false && this.defaultContextId === undefined) this.defaultContextId = context.id;
    }));
    this.subs.add(client.onEvent('Runtime.executionContextDestroyed', ({ executionContextId }) => {
      if (executionContextId === this.defaultContextId) void this.collect(true).then(() => this.endedEmitter.fire());
    }));
    await client.send('Runtime.enable');
    const main = new ThreadProfiler(client, 'main', this.pid, this.logger);
    this.threads.push(main);
    await main.start(this.options.samplingIntervalMicros);
    if (this.options.workers !== false) await this.watchWorkers();
  }

  private async watchWorkers(): Promise<void> {
    const given = this.options.workers;
    this.hub = given instanceof WorkerHub ? given : (this.ownHub = await WorkerHub.start(this.client, this.logger));
    this.setup = (w) => this.attachWorker(w);
    await this.hub.use(this.setup);
  }

  private async attachWorker({ session, thread: label }: WorkerHandle): Promise<void> {
    if (this.collected) return;
    const thread = new ThreadProfiler(session, label, this.pid, this.logger);
    try {
      let contextId: number | undefined;
      this.subs.add(session.onEvent('Runtime.executionContextCreated', ({ context }) => { contextId ??= context.id; }));
      // A worker that ends before stop(): grab its profile while its thread still answers.
      this.subs.add(session.onEvent('Runtime.executionContextDestroyed', ({ executionContextId }) => { if (executionContextId === contextId) void thread.stop(true); }));
      await session.send('Runtime.enable');
      await thread.start(this.options.samplingIntervalMicros);
      this.threads.push(thread);
    } catch (err) {
      this.logger.warn(`Could not profile ${thread.thread}: ${errorMessage(err)}`);
    }
  }

  private collect(partial: boolean): Promise<CapturedProfile[]> {
    this.collected ??= (async () => {
      const results = await Promise.all(this.threads.map((t) => t.stop(partial)));
      return results.filter((r): r is CapturedProfile => r !== undefined);
    })();
    return this.collected;
  }

  /** True when the target ended on its own and its profiles were already collected. */
  get ended(): boolean { return this.collected !== undefined; }

  /** Stops every thread's profiler and returns the profiles (main first). Idempotent. */
  stop(): Promise<CapturedProfile[]> {
    return this.collect(false);
  }

  dispose(): void {
    this.subs.dispose();
    if (this.setup) this.hub?.stopUsing(this.setup);
    this.ownHub?.dispose();
    this.endedEmitter.dispose();
  }
}
