/**
 * Leak check under load: start the app, warm it up, then measure the V8 heap after a forced full GC
 * (HeapProfiler.collectGarbage over the inspector) at rungs — after the warm-up, after N, 2N and 4N
 * requests, and after an idle period — and fit the growth per request through them. Meanwhile V8's
 * sampling heap profiler runs without keeping collected objects, so at the end it holds exactly the
 * sampled objects allocated during the check that survived every GC: the retaining sites, by function,
 * mapped to lines.
 *
 * Why survivors sampling and not two heap snapshots: on a 500 MB heap a snapshot stops the app for
 * seconds and needs a multiple of the heap in the app and in Hotpath to write and parse, while the
 * survivors profile costs the sampling overhead and a profile of a few hundred KB (measured:
 * `npm run bench -- leak`). A snapshot diff would name the retainer (the array or map holding the
 * objects); the survivors profile names where they were allocated, which is the line to change in
 * the per-request leaks this check is for.
 */
import * as path from 'node:path';
import { attributeProfile } from '../attribution';
import { type CancellationToken, neverCancelled, throwIfCancelled, delay } from '../common/cancellation';
import { silentLogger, type Logger } from '../common/logger';
import { errorMessage } from '../common/errors';
import type { Warning } from '../common/warnings';
import { CdpClient, type CdpSession } from '../inspector/cdpClient';
import { resolveLoadOptions, type LoadOptions, type LoadOptionsInput } from '../load/options';
import type { LoadResult } from '../load/result';
import { runLoad } from '../load/runner';
import { AllocationSampler } from '../memory/allocationSampler';
import { buildAllocationModel, type SamplingHeapProfile } from '../memory/heapProfile';
import { growthOf, type Growth, type Rung } from '../memory/growth';
import { compareGrowth, type GrowthComparison } from '../memory/growthComparison';
import { HEAP_LIMIT_EXPRESSION, planHeapCeiling, type HeapCeiling } from '../memory/heapCeiling';
import { LeakStore, type LeakRecord } from '../memory/leakStore';
import { ownedSites } from '../memory/sites';
import type { Attribution } from '../attribution';
import type { ProfileModel } from '../profile/types';
import { formatInt } from '../../shared/text/numbers';
import { nodeEnvWarning, type PreflightCheck } from './preflight';
import { timestamp } from './profileStore';
import { profileStem } from '../stats/baselineName';
import type { TargetInfo, WorkflowDeps } from './profileWithLoad';
import type { ProgressSink } from './progress';
import { withHttpTarget, type TargetCommand } from './runningTarget';
import type { HttpReady } from '../target/readiness';
import { crashCheck, growthCheck } from './runtimeChecks';
import { describeCrash, TargetWatch, type LeakCrash, type LeakStep } from './leakCrash';
import * as fs from 'node:fs/promises';
import { setFlagsExpression } from '../v8/targetScripts';

/** Flags that stop V8 inlining (TurboFan, and Maglev where it exists; unknown flags are ignored quietly). */
const NO_INLINING_FLAGS = '--no-turbo-inlining --no-maglev-inlining';

export interface LeakRequest extends TargetCommand {
  load: LoadOptionsInput;
  /** Requests between the first two rungs (N); the rungs are after N, 2N and 4N requests. */
  rungRequests?: number;
  /** Seconds without load before the last rung. */
  idleSeconds?: number;
  /** Names the stored check (the previous one is compared with). */
  name: string;
  /** Where the survivors' heap profile goes; default <cwd>/.hotpath/profiles. */
  outDir?: string;
  /** Where checks are stored; default <cwd>/.hotpath/leaks. */
  storeDir?: string;
  /** Store this check for the next one to compare with (default true). */
  store?: boolean;
  limit?: number;
}

export interface RetainingSite {
  function: string;
  file: string;
  line: number | null;
  retainedBytes: number;
  retainedBytesPerRequest: number;
  category: string;
  package: string | null;
}

/**
 * 'incomplete': the app ended before the check did (`crash` says how); the growth fields are then the
 * fit through the rungs measured before the end, shown but not a verdict.
 */
export type LeakVerdict = Growth['verdict'] | 'incomplete';

/** The `leak` object of the JSON. */
export interface LeakSummary extends Omit<Growth, 'verdict'> {
  verdict: LeakVerdict;
  rungs: Rung[];
  sites: RetainingSite[];
  /** Requests of the check's load (after the warm-up). */
  requests: number;
  samplingIntervalBytes: number;
  heapProfilePath: string | null;
  /** The app's heap limit during the check, and who set it (the check's ceiling, or the app). */
  heapCeiling: HeapCeiling;
  /** Set when the app ended before the check did (exited, killed, out of memory). */
  crash: LeakCrash | null;
}

export interface LeakResult {
  kind: 'leak';
  name: string;
  target: TargetInfo;
  loadOptions: LoadOptions;
  /** The last rung's load run (req/s and latency under the check's load); null when the app ended before one completed. */
  load: LoadResult | null;
  leak: LeakSummary;
  /** The previous check of this target, compared: "stable now; was +3.1 KB/request". */
  previous: { createdAt: string; comparison: GrowthComparison } | null;
  checks: PreflightCheck[];
  warnings: Warning[];
  /** The survivors' model and attribution, for the editor's labels. Not in the JSON. */
  retained?: { model: ProfileModel; attribution: Attribution };
}

export const DEFAULT_RUNG_REQUESTS = 2000;
export const DEFAULT_IDLE_SECONDS = 5;
/** Finer than --memory's default: survivors are few, and each sample stands for fewer bytes. */
export const LEAK_SAMPLING_INTERVAL_BYTES = 16 * 1024;

/** Heap used after two full GCs (the second collects what the first's finalizers released), and external memory. */
async function measureHeap(session: CdpSession): Promise<{ heapUsedBytes: number; externalBytes?: number }> {
  await session.send('HeapProfiler.collectGarbage');
  await session.send('HeapProfiler.collectGarbage');
  const usage = await session.send<{ usedSize: number }>('Runtime.getHeapUsage');
  const mem = await session.trySend<{ result?: { value?: number } }>('Runtime.evaluate', { expression: 'process.memoryUsage().external', returnByValue: true, silent: true });
  const external = mem?.result?.value;
  return { heapUsedBytes: usage.usedSize, ...(typeof external === 'number' ? { externalBytes: external } : {}) };
}

function stepProgress(progress: ProgressSink, message: string, fraction: number, requestsPerSecond?: number): void {
  progress({ stage: message.startsWith('Warming') ? 'warmup' : 'measuring', message, fraction, ...(requestsPerSecond !== undefined ? { requestsPerSecond } : {}) });
}

/** What the check measured in the app: all of it, or up to the app's end (`crash`). */
interface Measured {
  rungs: Rung[];
  survivors: SamplingHeapProfile | null;
  load: LoadResult | null;
  loadOptions: LoadOptions;
  ready: HttpReady;
  requests: number;
  ceiling: HeapCeiling;
  crash: LeakCrash | null;
}

/** The app's V8 heap limit, read in the app; null when it cannot say (an older Node). */
async function heapLimitOf(session: CdpSession): Promise<number | null> {
  const r = await session.trySend<{ result?: { value?: unknown } }>('Runtime.evaluate', { expression: HEAP_LIMIT_EXPRESSION, returnByValue: true, silent: true });
  const v = r?.result?.value;
  return typeof v === 'number' && v > 0 ? v : null;
}

export async function checkForLeaks(request: LeakRequest, deps: WorkflowDeps = {}): Promise<LeakResult> {
  const token: CancellationToken = deps.token ?? neverCancelled;
  const logger: Logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  const n = request.rungRequests ?? DEFAULT_RUNG_REQUESTS;
  const idleSeconds = request.idleSeconds ?? DEFAULT_IDLE_SECONDS;
  resolveLoadOptions(request.load, { port: request.port ?? 1 }); // bad flags fail before the app starts
  progress({ stage: 'starting', message: `Starting ${request.command.join(' ')}`, fraction: 0 });

  // A leak fills the heap: the app runs under a heap ceiling, so a fast one ends it in bounded time and memory.
  const plan = planHeapCeiling(request.command, request.env);
  const steps = [n, n, 2 * n];
  const total = 4 * n;
  const measured = await withHttpTarget<Measured>({ ...request, env: plan.env }, { token, logger }, async (target, ready) => {
    const loadOptions = resolveLoadOptions(request.load, { port: ready.port });
    const client = await CdpClient.connect(ready.process.inspectorUrl!, { token, logger });
    // Every step below stops when the app is gone (a load of N requests against a closed port never ends).
    const watch = await TargetWatch.start(target, client, token);
    const stepToken = watch.token;
    const rungs: Rung[] = [];
    let sampler: AllocationSampler | undefined;
    let during: LeakStep = 'warmup';
    let rungTarget: number | null = null;
    let done = 0;
    let last: LoadResult | null = null;
    let ceiling: HeapCeiling = plan.ceiling;
    try {
      try {
        ceiling = { ...plan.ceiling, heapSizeLimitBytes: await heapLimitOf(client) };
        logger.info(`Heap limit of the app: ${ceiling.heapSizeLimitBytes ?? 'unknown'} bytes (${ceiling.setBy === 'hotpath' ? `the check's ceiling, --max-old-space-size=${ceiling.maxOldSpaceMb}` : 'the app\'s own'})`);
        // V8 charges the allocations of inlined code to the function it was inlined into; without inlining
        // (from here on: the handlers get hot in the warm-up) each object is charged to the function that
        // made it. The app is Hotpath's own and stopped after the check; its speed is not what is measured.
        await client.trySend('Runtime.evaluate', { expression: setFlagsExpression(NO_INLINING_FLAGS), silent: true });
        if (loadOptions.warmupSeconds > 0) {
          stepProgress(progress, 'Warming up', 0.02);
          await runLoad({ ...loadOptions, durationSeconds: loadOptions.warmupSeconds, warmupSeconds: 0 }, { token: stepToken, logger, warmup: true });
        }
        during = 'measurement';
        stepProgress(progress, 'Measuring the heap after the warm-up (full GC)', 0.1);
        rungs.push({ requests: 0, phase: 'warmup', ...(await measureHeap(client)) });
        sampler = await AllocationSampler.start(client, { intervalBytes: LEAK_SAMPLING_INTERVAL_BYTES, includeCollected: false });
        for (const step of steps) {
          throwIfCancelled(stepToken, 'The leak check');
          const base = done;
          during = 'load';
          rungTarget = done + step;
          last = await runLoad({ ...loadOptions, warmupSeconds: 0 }, {
            token: stepToken, logger, requests: step,
            onProgress: (p) => stepProgress(progress, `Load: ${formatInt(base + p.responses)} of ${formatInt(total)} requests`, 0.1 + (0.75 * (base + p.responses)) / total, p.requestsPerSecond),
          });
          done += last.requests.total;
          during = 'measurement';
          rungTarget = null;
          stepProgress(progress, `Measuring the heap after ${formatInt(done)} requests (full GC)`, 0.1 + (0.75 * done) / total);
          rungs.push({ requests: done, phase: 'load', ...(await measureHeap(client)) });
        }
        during = 'idle';
        stepProgress(progress, `Idle for ${idleSeconds} s`, 0.88);
        await delay(idleSeconds * 1000, stepToken);
        during = 'measurement';
        rungs.push({ requests: done, phase: 'idle', ...(await measureHeap(client)) });
        // After the last full GC: the sampled objects still alive are the ones the app kept.
        const survivors = await sampler.stop();
        return { rungs, survivors, load: last, loadOptions, ready, requests: done, ceiling, crash: null };
      } catch (err) {
        // The app's end failed the step: keep what was measured and say how it ended. Anything else (the
        // user's cancellation, an app that is still there) is the error it is.
        if (!(await watch.appEnded())) throw err;
        logger.warn(`The app ended during the leak check (${errorMessage(err)})`);
        const crash = await describeCrash(target, { during, rungs, rungTarget, growth: growthOf(rungs), ceiling, rungRequests: n });
        return { rungs, survivors: null, load: last, loadOptions, ready, requests: done, ceiling, crash };
      }
    } finally {
      watch.dispose();
      await sampler?.abandon();
      await client.close();
    }
  });

  const { crash } = measured;
  progress({ stage: 'analyzing', message: crash ? 'The app ended before the check did' : 'Finding the retaining lines', fraction: 0.95 });
  const growth = growthOf(measured.rungs);
  let heapProfilePath: string | null = null;
  let sites: RetainingSite[] = [];
  let retained: LeakResult['retained'];
  if (measured.survivors) {
    const outDir = request.outDir ?? path.join(request.cwd, '.hotpath', 'profiles');
    heapProfilePath = await saveSurvivors(outDir, request.name, measured.survivors);
    const model = await buildAllocationModel(measured.survivors, { sourceName: heapProfilePath ?? 'survivors', token });
    const attribution = await attributeProfile(model, { token });
    sites = ownedSites(model, attribution, { minPct: 1 }).slice(0, request.limit ?? 10).map((s) => ({
      function: s.function, file: s.file, line: s.line, retainedBytes: s.bytes,
      retainedBytesPerRequest: measured.requests > 0 ? Math.round((s.bytes / measured.requests) * 10) / 10 : 0, category: s.category, package: s.package,
    }));
    retained = { model, attribution };
  }
  const leak: LeakSummary = {
    ...growth, verdict: crash ? 'incomplete' : growth.verdict, rungs: measured.rungs, sites, requests: measured.requests,
    samplingIntervalBytes: LEAK_SAMPLING_INTERVAL_BYTES, heapProfilePath, heapCeiling: measured.ceiling, crash,
  };

  // An incomplete check is neither compared nor stored: the next check compares with the last complete one.
  const store = new LeakStore(request.storeDir ?? path.join(request.cwd, '.hotpath', 'leaks'));
  const before = crash ? undefined : await store.load(request.name).catch(() => undefined);
  const previous = before ? { createdAt: before.createdAt, comparison: compareGrowth(before, growth) } : null;
  const record = leakRecord(leak);
  if (request.store !== false && record) await store.save(request.name, record).catch((err) => logger.warn(`Could not store the leak check: ${(err as Error).message}`));

  const warnings: Warning[] = [...(measured.load?.warnings ?? [])];
  const env = nodeEnvWarning(measured.ready.process.nodeEnv);
  if (env) warnings.unshift(env);
  if (!crash && growth.verdict === 'stable' && growth.ciHigh > 1024) {
    warnings.push({ code: 'LEAK_CHECK_WIDE', message: `No growth was proven, but the interval reaches ${Math.round(growth.ciHigh)} bytes/request: the heap moved a lot between rungs. Re-run with more requests per rung (--rung ${n * 4}).` });
  }
  const userSite = sites.find((s) => s.category === 'user');
  return {
    kind: 'leak', name: request.name,
    target: { command: request.command, pid: measured.ready.process.pid, port: measured.ready.port, nodeVersion: measured.ready.process.nodeVersion, nodeEnv: measured.ready.process.nodeEnv },
    loadOptions: measured.loadOptions, load: measured.load, leak, previous,
    checks: [crash ? crashCheck(crash) : growthCheck(growth, growth.verdict === 'growing' ? userSite ?? sites[0] : undefined)], warnings,
    ...(retained ? { retained } : {}),
  };
}

/** What is stored of a check (the next one, a baseline's verify compare with it); null for an incomplete one. */
export function leakRecord(leak: LeakSummary, createdAt = new Date().toISOString()): LeakRecord | null {
  if (leak.verdict === 'incomplete') return null;
  return { version: 1, createdAt, verdict: leak.verdict, bytesPerRequest: leak.bytesPerRequest, ciLow: leak.ciLow, ciHigh: leak.ciHigh, rungs: leak.rungs, sites: leak.sites.slice(0, 5) };
}

async function saveSurvivors(dir: string, name: string, profile: SamplingHeapProfile): Promise<string | null> {
  try {
    await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${timestamp()}-${profileStem(name)}.retained.heapprofile`);
    await fs.writeFile(file, JSON.stringify(profile));
    return file;
  } catch {
    return null;
  }
}
