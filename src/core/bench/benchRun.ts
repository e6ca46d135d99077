/**
 * One process running a benchmark file, as the user would run it (`node bench.mjs`), with V8's view of
 * the benchmarked functions collected in the same run: V8's tracing is switched on before the file
 * runs (the process waits for it, as in `hotpath profile --script`), and at exit — while the process
 * still exists — the task functions are located and their tiers read. No CPU profiler: it would slow
 * what is measured.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { PROFILE_NAMED_FILE_MAX_BYTES, readBoundedFileSync } from '../common/boundedRead';
import { cancelledError, errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import { CdpClient, type CdpSession } from '../inspector/cdpClient';
import type { RawCpuProfile } from '../inspector/profilingRun';
import { buildProfileModel } from '../profile';
import { distFile } from '../target/distFiles';
import { launchTarget, quoteForNodeOptions } from '../target/launcher';
import { runPastWait } from '../target/resume';
import { ownedTempDir } from '../target/staleFiles';
import type { ProcessReport } from '../target/reports';
import { V8Collector } from '../v8/collector';
import { installExitHook } from '../v8/exitHook';
import { removeTraceFile } from '../v8/flags';
import { joinV8Signals } from '../v8/join';
import type { V8Collection, V8FunctionSignals, V8RawSignals } from '../v8/types';
import { parseNodeBenchReport } from './nodeBench';
import { BENCH_FLOOR_ENV, BENCH_FUNCTIONS_KEY, BENCH_OUT_ENV, BENCH_PRELOAD_FILE_NAME, BENCH_TASKS_ENV, type BenchExitCall, type BenchProcessResults } from './reports';

export type BenchHarness = 'tinybench' | 'node:bench';

export interface BenchRunRequest {
  file: string;
  cwd: string;
  /** The node binary (default: `node` on the PATH). */
  node?: string;
  harness: BenchHarness;
  /** Only these tasks (by name); default all. */
  tasks?: string[];
  env?: Record<string, string | undefined>;
  /** Measure the empty-function floor (default true). */
  floor?: boolean;
  /** Collect V8's view of the task functions (default true). */
  v8?: boolean;
  timeoutMs?: number;
}

export interface BenchRun {
  results: BenchProcessResults;
  nodeVersion: string | null;
  /** Per task name: V8's view of its function in this run. */
  v8: Map<string, V8FunctionSignals>;
  v8Collection?: V8Collection;
}

/** dist/hotpath-bench-preload.js. */
export function benchPreloadPath(): string {
  return distFile(BENCH_PRELOAD_FILE_NAME, 'benchmark preload');
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where each task function is ([[FunctionLocation]] of the functions the preload kept), as profile call frames. */
async function taskFunctionFrames(session: CdpSession): Promise<Array<{ task: string; callFrame: { functionName: string; scriptId: string; url: string; lineNumber: number; columnNumber: number } }>> {
  const urls = new Map<string, string>();
  const sub = session.onEvent('Debugger.scriptParsed', ({ scriptId, url }: { scriptId: string; url: string }) => { if (url) urls.set(scriptId, url); });
  try { await session.send('Debugger.enable'); } finally { sub.dispose(); }
  await session.trySend('Debugger.disable');
  const group = 'hotpath-bench';
  try {
    const list = await session.send<{ result: { objectId?: string } }>('Runtime.evaluate', { expression: `globalThis[Symbol.for(${JSON.stringify(BENCH_FUNCTIONS_KEY)})] ?? []`, objectGroup: group, silent: true });
    if (!list.result.objectId) return [];
    const entries = await session.send<{ result: Array<{ name: string; value?: { objectId?: string } }> }>('Runtime.getProperties', { objectId: list.result.objectId, ownProperties: true });
    const out = [];
    for (const entry of entries.result) {
      if (!/^\d+$/.test(entry.name) || !entry.value?.objectId) continue;
      const fields = await session.send<{ result: Array<{ name: string; value?: { value?: unknown; objectId?: string } }> }>('Runtime.getProperties', { objectId: entry.value.objectId, ownProperties: true });
      const task = String(fields.result.find((f) => f.name === 'name')?.value?.value ?? '');
      const fnId = fields.result.find((f) => f.name === 'fn')?.value?.objectId;
      if (!fnId) continue;
      const props = await session.send<{ result: Array<{ name: string; value?: { value?: unknown } }>; internalProperties?: Array<{ name: string; value?: { value?: { scriptId: string; lineNumber: number; columnNumber: number } } }> }>('Runtime.getProperties', { objectId: fnId, ownProperties: true });
      const location = props.internalProperties?.find((p) => p.name === '[[FunctionLocation]]')?.value?.value;
      const name = String(props.result.find((p) => p.name === 'name')?.value?.value ?? '');
      const url = location ? urls.get(location.scriptId) : undefined;
      if (location && url) out.push({ task, callFrame: { functionName: name, scriptId: location.scriptId, url, lineNumber: location.lineNumber, columnNumber: location.columnNumber } });
    }
    return out;
  } finally {
    await session.trySend('Runtime.releaseObjectGroup', { objectGroup: group });
  }
}

/** A profile with one frame per task function: what V8's collector and join key their answers on. */
function framesProfile(frames: Awaited<ReturnType<typeof taskFunctionFrames>>): RawCpuProfile {
  const nodes = [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, children: frames.map((_, i) => i + 2) }, ...frames.map((f, i) => ({ id: i + 2, callFrame: f.callFrame, hitCount: 1 }))];
  return { nodes, startTime: 0, endTime: frames.length + 1, samples: frames.map((_, i) => i + 2), timeDeltas: frames.map(() => 1) };
}

/** What a process.exit in a benchmark did, and what to do instead. */
function exitCallText(call: BenchExitCall): string {
  const who = call.task !== null ? `the task '${call.task}'` : call.duringRun ? 'a task (or code bench.run() calls)' : 'the file';
  const when = call.task !== null ? '' : call.duringRun ? ' while the benchmark ran' : ' before a benchmark finished';
  return `${who} called process.exit(${call.code})${when}, which ended the process with exit code ${call.code} before anything was measured. `
    + (call.duringRun ? 'A task must return (or throw) for the harness to time it: remove the process.exit call from it.' : 'Let the file end on its own after `await bench.run()`, or call process.exit only after it.');
}

export async function runBenchmarkOnce(request: BenchRunRequest, deps: { token?: CancellationToken; logger?: Logger } = {}): Promise<BenchRun> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const dir = ownedTempDir('hotpath-bench-'); // removed below, or by the next run if this one is killed
  const out = path.join(dir, 'results.json');
  const ndjson = path.join(dir, 'node-bench.ndjson');
  const node = request.node ?? 'node';
  const harnessArgs = request.harness === 'node:bench'
    ? ['--experimental-bench', '--bench', '--bench-isolation=none', '--bench-reporter=json', `--bench-reporter-destination=${ndjson}`,
      ...(request.tasks?.length ? [`--bench-name-pattern=^(${request.tasks.map(escapeRegExp).join('|')})$`] : [])]
    : [];
  const env: Record<string, string | undefined> = {
    ...request.env,
    NODE_OPTIONS: [request.env?.NODE_OPTIONS ?? process.env.NODE_OPTIONS, `--require ${quoteForNodeOptions(benchPreloadPath())}`].filter(Boolean).join(' '),
    [BENCH_OUT_ENV]: out,
    [BENCH_FLOOR_ENV]: request.floor === false ? '0' : '1',
    ...(request.tasks?.length ? { [BENCH_TASKS_ENV]: JSON.stringify(request.tasks) } : {}),
  };
  const target = await launchTarget({ command: [node, ...harnessArgs, request.file], cwd: request.cwd, env, mode: 'script', logger }, token);
  let client: CdpClient | undefined;
  let collector: V8Collector | undefined;
  let signals: V8RawSignals | undefined;
  let frames: Awaited<ReturnType<typeof taskFunctionFrames>> = [];
  let main: ProcessReport | undefined;
  let hooked = false;
  let unreleased: string | undefined;
  const attached = new Promise<void>((resolve) => {
    const attach = async (proc: ProcessReport) => {
      if (main || proc.inProcess) return;
      main = proc;
      try {
        if (!proc.inspectorUrl) throw new Error(proc.inspectorError ?? 'no inspector');
        client = await CdpClient.connect(proc.inspectorUrl, { token, logger });
        const c = client;
        if (request.v8 !== false) {
          collector = await V8Collector.start(c, proc.pid, { mode: 'script', logger, output: target.onOutput });
          const v8 = collector;
          await installExitHook(c, async () => {
            try {
              await v8.stopTracing();
              try { frames = await taskFunctionFrames(c); } catch (err) { logger.warn(`Task functions not located: ${errorMessage(err)}`); }
              signals = await v8.finish(framesProfile(frames));
            } finally {
              // Let the exiting process go, then leave: Node waits at exit for an attached debugger to disconnect.
              await c.trySend('Runtime.runIfWaitingForDebugger');
              void c.close();
            }
          });
          hooked = true;
        }
      } catch (err) {
        logger.warn(`No V8 signals for the benchmark (PID ${proc.pid}): ${errorMessage(err)}`);
        // Not connected: nothing can let the process out of its wait; stop it rather than wait for the timeout.
        if (!client && proc.waiting) { unreleased = errorMessage(err); void target.stop(); }
      } finally {
        if (client) await runPastWait(client, target, proc.pid);
        // Without an exit hook there is nothing more to ask: disconnect now, or the process waits for us at exit.
        if (!hooked) await client?.close();
        resolve();
      }
    };
    target.onProcess((p) => void attach(p));
    for (const p of target.processes.values()) void attach(p);
  });
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  if (request.timeoutMs) timer = setTimeout(() => { timedOut = true; void target.stop(); }, request.timeoutMs);
  const onCancel = token.onCancellationRequested(() => void target.stop());
  try {
    const exit = await target.exited;
    if (token.isCancellationRequested) throw cancelledError();
    if (unreleased !== undefined) throw new HotpathError(ErrorCode.InspectorUnavailable, `The benchmark ${request.file} did not run: Hotpath could not attach to its process to start it (${unreleased}).${target.output.forMessage()}`);
    if (timedOut) throw new HotpathError(ErrorCode.Timeout, `The benchmark ${request.file} did not finish within ${Math.round(request.timeoutMs! / 1000)} s (--timeout).${target.output.forMessage()}`);
    if (main) await attached;
    let results: BenchProcessResults | undefined;
    let preloadDoc: BenchProcessResults | undefined;
    try { preloadDoc = JSON.parse(readBoundedFileSync(out, PROFILE_NAMED_FILE_MAX_BYTES).toString('utf8')) as BenchProcessResults; } catch { /* none */ }
    if (request.harness === 'node:bench') {
      let text = '';
      try { text = readBoundedFileSync(ndjson, PROFILE_NAMED_FILE_MAX_BYTES).toString('utf8'); } catch { /* nothing reported */ }
      results = parseNodeBenchReport(text);
    } else {
      // node:bench keeps the functions; the preload read nothing else.
      results = preloadDoc;
    }
    const exitCall = preloadDoc?.exit;
    if (exitCall && (exitCall.duringRun || !results?.tasks.length)) {
      throw new HotpathError(ErrorCode.TargetExited, `${request.file}: ${exitCallText(exitCall)}${target.output.forMessage()}`);
    }
    if (exit.code !== 0 && !(results?.tasks.length)) {
      throw new HotpathError(ErrorCode.TargetExited, `The benchmark ${request.file} ${target.describeExit()}.${target.output.forMessage()}`);
    }
    if (!results?.tasks.length) {
      const what = request.harness === 'node:bench' ? 'node:bench reported no benchmark' : 'no tinybench `Bench` ran (is `tinybench` installed where the file can import it, and does the file call `bench.run()`?)';
      throw new HotpathError(ErrorCode.InvalidOption, `${request.file}: ${what}${request.tasks?.length ? ` among the tasks asked for (${request.tasks.join(', ')})` : ''}.${target.output.forMessage()}`);
    }
    const v8 = new Map<string, V8FunctionSignals>();
    if (signals && frames.length) {
      const model = buildProfileModel(Buffer.from(JSON.stringify(framesProfile(frames))), { sourceMaps: false, sourceName: request.file });
      const joined = await joinV8Signals(model, signals, { hotShare: 0 });
      model.functions.forEach((info, f) => {
        const s = joined.functions.get(f);
        if (!s) return;
        for (const fr of frames) if (fr.callFrame.url === info.url && fr.callFrame.lineNumber + 1 === info.line && fr.callFrame.columnNumber + 1 === info.column) v8.set(fr.task, s);
      });
    }
    return { results, nodeVersion: main?.nodeVersion ?? null, v8, ...(signals ? { v8Collection: signals.collection } : {}) };
  } finally {
    if (timer) clearTimeout(timer);
    onCancel.dispose();
    await collector?.finish(undefined, { targetGone: true }).catch(() => undefined);
    await client?.close();
    await target.stop();
    if (main) removeTraceFile(main.pid);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
