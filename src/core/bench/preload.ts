/**
 * The benchmark preload: loaded with `--require` into the process that runs a benchmark file for
 * `hotpath bench`. It leaves the benchmark as written and reads what the harness measured:
 *
 * - tinybench: the package the file would load (resolved from the file's folder) is loaded first —
 *   the same module instance the file gets, for `import` and `require` alike — and `Bench.prototype`'s
 *   `add`, `run` and `runSync` are wrapped: the task functions are remembered (for V8's view of them),
 *   tasks not asked for are removed, each task's tier is read when its measurement starts and ends, and
 *   after the first run an empty task is measured with the same options, for at most 100 ms (the
 *   harness's own cost per call: a task no slower than that measures nothing).
 * - node:bench (Node 26.9+, --experimental-bench): `bench()` is wrapped only to remember the functions;
 *   results come from node:bench's own JSON reporter.
 *
 * Self-contained, silent, guarded: a failure here leaves the benchmark running as it would without it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { calibrateLayout, tierFromStatus, type StatusLayout } from '../v8/statusBits';
import type { V8Tier } from '../v8/types';
import { BENCH_FLOOR_ENV, BENCH_FUNCTIONS_KEY, BENCH_OUT_ENV, BENCH_TASKS_ENV, type BenchExitCall, type BenchProcessResults, type BenchTaskRun } from './reports';

type Fn = (...args: unknown[]) => unknown;
interface TaskLike extends EventTarget { name: string; result?: Record<string, unknown> & { latency?: Record<string, unknown> }; runs?: number }
interface BenchLike {
  tasks: TaskLike[];
  remove?(name: string): unknown;
  constructor: new (options?: object) => BenchLike & { add(name: string, fn: Fn): unknown; run(): Promise<unknown>; runSync?(): unknown };
  [key: string]: unknown;
}

const functions: Array<{ name: string; fn: Fn }> = [];
const results: BenchTaskRun[] = [];
let harness: BenchProcessResults['harness'] = 'tinybench';
let harnessVersion: string | null = null;
let floorNs: number | null = null;
let floorP50Ns: number | null = null;
let floorP75Ns: number | null = null;
let floorDone = process.env[BENCH_FLOOR_ENV] === '0';
/**
 * `bench.run()` calls under way, the task the harness last said it warms up or runs, and the task being
 * added (tinybench calls a task once as it is added, to see whether it returns a promise).
 */
let runsUnderWay = 0;
let currentTask: string | null = null;
let addingTask: string | null = null;
let exitCall: BenchExitCall | null = null;

/** `%GetOptimizationStatus`, compiled while natives are allowed (a parser flag), then switched off again. */
function statusReader(): ((f: Fn) => V8Tier) | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const v8 = require('node:v8') as typeof import('node:v8');
    v8.setFlagsFromString('--allow-natives-syntax');
    try {
      const status = new Function('f', 'return %GetOptimizationStatus(f)') as (f: Fn) => number;
      const probes = new Function(`
        function hotpathProbeHot(x) { return (x + 1) | 0; }
        function hotpathProbeCold(x) { return x - 1; }
        %PrepareFunctionForOptimization(hotpathProbeHot); hotpathProbeHot(1); hotpathProbeHot(2); %OptimizeFunctionOnNextCall(hotpathProbeHot); hotpathProbeHot(3);
        hotpathProbeCold(1);
        return [%GetOptimizationStatus(hotpathProbeHot), %GetOptimizationStatus(hotpathProbeCold)];`) as () => [number, number];
      const [hot, cold] = probes();
      const layout: StatusLayout | undefined = calibrateLayout(hot, cold);
      return (f) => tierFromStatus(status(f), layout);
    } finally {
      v8.setFlagsFromString('--no-allow-natives-syntax');
    }
  } catch {
    return undefined;
  }
}

const tierOf = statusReader();
const wanted: string[] | undefined = (() => { try { const v = JSON.parse(process.env[BENCH_TASKS_ENV] ?? 'null'); return Array.isArray(v) ? v.map(String) : undefined; } catch { return undefined; } })();

function write(): void {
  const out = process.env[BENCH_OUT_ENV];
  if (!out) return;
  const doc: BenchProcessResults = { harness, harnessVersion, tasks: results, floorNs, floorP50Ns, floorP75Ns, exit: exitCall };
  try { fs.writeFileSync(out, JSON.stringify(doc)); } catch { /* Hotpath will say nothing was measured */ }
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** tinybench 3+ (`result.latency.mean` in ms) and 2.x (`result.mean` in ms). */
function taskRun(task: TaskLike): Omit<BenchTaskRun, 'tierAtStart' | 'tierAtEnd'> {
  const r = task.result;
  const error = r && (r.error as Error | undefined);
  if (!r || error || r.state === 'errored' || r.state === 'aborted') {
    return { name: task.name, meanNs: 0, p99Ns: 0, samples: 0, rmePct: null, error: error ? String(error.message ?? error) : `not measured (${String(r?.state ?? 'no result')})` };
  }
  const lat = (r.latency ?? r) as Record<string, unknown>;
  const samples = num(lat.samplesCount) ?? (Array.isArray(lat.samples) ? lat.samples.length : null) ?? num(task.runs) ?? 0;
  const p50 = num(lat.p50);
  return { name: task.name, meanNs: (num(lat.mean) ?? 0) * 1e6, p99Ns: (num(lat.p99) ?? 0) * 1e6, p50Ns: p50 === null ? null : p50 * 1e6, samples, rmePct: num(lat.rme) };
}

/** A task's 75th percentile per call, ns (tinybench 2.x and 3+), or null. */
function p75Of(task: TaskLike): number | null {
  const r = task.result as Record<string, unknown> | undefined;
  const p75 = num(((r?.latency ?? r) as Record<string, unknown> | undefined)?.p75);
  return p75 === null ? null : p75 * 1e6;
}

/** The longest the empty function is measured (ms). */
const FLOOR_TIME_MS = 100;
const OPTION_KEYS = ['time', 'iterations', 'warmup', 'warmupTime', 'warmupIterations', 'now', 'timestampProvider', 'subtractTimerOverhead'];

async function measureFloor(bench: BenchLike, sync: boolean): Promise<void> {
  if (floorDone) return;
  floorDone = true;
  if (bench.concurrency) return; // concurrent runs measure something else
  const options: Record<string, unknown> = {};
  const source = (bench.opts ?? bench) as Record<string, unknown>;
  for (const k of OPTION_KEYS) if (source[k] !== undefined && typeof source[k] !== 'object') options[k] = source[k];
  // Measured for at most FLOOR_TIME_MS (tinybench's default is 1 s): the empty function's median and
  // mean per call are settled long before (millions of calls), and tinybench keeps and sorts every
  // sample — at ~40 ns a call, 400 ms of it took ~3.6 s to measure and summarise, 40% of a process's time.
  options.time = Math.min(typeof options.time === 'number' && options.time > 0 ? options.time : FLOOR_TIME_MS, FLOOR_TIME_MS);
  const floor = new bench.constructor(options);
  (floor as unknown as { hotpathFloor: boolean }).hotpathFloor = true;
  floor.add('(empty)', () => {});
  if (sync && floor.runSync) floor.runSync(); else await floor.run();
  const t = floor.tasks[0];
  if (t) {
    const m = taskRun(t);
    floorNs = m.error ? null : m.meanNs;
    floorP50Ns = m.error ? null : m.p50Ns ?? null;
    floorP75Ns = m.error ? null : p75Of(t);
  }
}

function patchTinybench(Bench: { prototype: Record<string, unknown> }): void {
  const proto = Bench.prototype as Record<string, Fn> & { hotpathPatched?: boolean };
  if (proto.hotpathPatched) return;
  proto.hotpathPatched = true as never;
  const add = proto.add;
  proto.add = function hotpathBenchAdd(this: BenchLike, name: unknown, fn: unknown, ...rest: unknown[]) {
    if (!(this as { hotpathFloor?: boolean }).hotpathFloor && typeof fn === 'function') functions.push({ name: String(name), fn: fn as Fn });
    const outer = addingTask;
    addingTask = String(name);
    try { return add.call(this, name, fn, ...rest); } finally { addingTask = outer; }
  };
  const watch = (bench: BenchLike) => {
    const tiers = new Map<string, { start?: V8Tier; end?: V8Tier }>();
    if ((bench as { hotpathFloor?: boolean }).hotpathFloor) return tiers;
    if (wanted) for (const t of [...bench.tasks]) if (!wanted.includes(t.name)) bench.remove?.(t.name);
    for (const task of bench.tasks) {
      if (typeof task.addEventListener !== 'function') continue;
      // Which task a process.exit came from: tinybench warms every task up, then runs each.
      for (const event of ['warmup', 'start']) task.addEventListener(event, () => { currentTask = task.name; });
    }
    if (!tierOf) return tiers;
    for (const task of bench.tasks) {
      const fn = functions.find((f) => f.name === task.name)?.fn;
      if (!fn || typeof task.addEventListener !== 'function') continue;
      const entry: { start?: V8Tier; end?: V8Tier } = {};
      tiers.set(task.name, entry);
      task.addEventListener('start', () => { entry.start = tierOf(fn); });
      task.addEventListener('cycle', () => { entry.end = tierOf(fn); });
      task.addEventListener('complete', () => { entry.end ??= tierOf(fn); });
    }
    return tiers;
  };
  const collect = (bench: BenchLike, tiers: Map<string, { start?: V8Tier; end?: V8Tier }>) => {
    if ((bench as { hotpathFloor?: boolean }).hotpathFloor) return;
    for (const task of bench.tasks) {
      const t = tiers.get(task.name);
      results.push({ ...taskRun(task), ...(t?.start ? { tierAtStart: t.start } : {}), ...(t?.end ? { tierAtEnd: t.end } : {}) });
    }
  };
  const run = proto.run;
  proto.run = async function hotpathBenchRun(this: BenchLike, ...args: unknown[]) {
    let tiers = new Map<string, { start?: V8Tier; end?: V8Tier }>();
    try { tiers = watch(this); } catch { /* measured without tiers */ }
    runsUnderWay++;
    let out: unknown;
    try { out = await run.apply(this, args); } finally { runsUnderWay--; currentTask = null; }
    try {
      collect(this, tiers);
      if (!(this as { hotpathFloor?: boolean }).hotpathFloor) await measureFloor(this, false);
    } catch { /* the results so far are written */ }
    write();
    return out;
  };
  const runSync = proto.runSync;
  if (typeof runSync === 'function') {
    proto.runSync = function hotpathBenchRunSync(this: BenchLike, ...args: unknown[]) {
      let tiers = new Map<string, { start?: V8Tier; end?: V8Tier }>();
      try { tiers = watch(this); } catch { /* measured without tiers */ }
      runsUnderWay++;
      let out: unknown;
      try { out = runSync.apply(this, args); } finally { runsUnderWay--; currentTask = null; }
      try {
        collect(this, tiers);
        if (!(this as { hotpathFloor?: boolean }).hotpathFloor && !floorDone) void measureFloor(this, true);
      } catch { /* as above */ }
      write();
      return out;
    };
  }
}

/** Every entry file of the tinybench the benchmark would load (an ES module and a CommonJS build can both exist). */
function tinybenchEntries(entry: string): string[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createRequire } = require('node:module') as typeof import('node:module');
  const req = createRequire(entry);
  let main: string;
  try { main = req.resolve('tinybench'); } catch { return []; }
  // Its package.json is not always exported: walk up from the entry to the package's folder.
  let pkgFile = '';
  for (let d = path.dirname(main); d !== path.dirname(d); d = path.dirname(d)) {
    const candidate = path.join(d, 'package.json');
    if (fs.existsSync(candidate)) { pkgFile = candidate; break; }
  }
  if (!pkgFile) return [main];
  const dir = path.dirname(pkgFile);
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as { version?: string; main?: string; module?: string; exports?: unknown };
  harnessVersion = pkg.version ?? null;
  const files = new Set<string>();
  const visit = (v: unknown) => {
    if (typeof v === 'string') { if (/\.[cm]?js$/.test(v)) files.add(path.resolve(dir, v)); return; }
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if ('.' in o) return visit(o['.']);
      for (const k of ['import', 'require', 'node', 'default']) if (k in o) visit(o[k]);
    }
  };
  visit(pkg.exports);
  for (const f of [pkg.main, pkg.module]) if (f) files.add(path.resolve(dir, f));
  files.add(main);
  return [...files].filter((f) => fs.existsSync(f));
}

/**
 * Notes a process.exit (its code, and the task under way) in the results before the process goes, so
 * Hotpath can say what ended the benchmark; the call itself goes on unchanged.
 */
function watchExit(): void {
  const exit = process.exit;
  process.exit = function hotpathBenchExit(this: unknown, code?: unknown) {
    try {
      if (!exitCall) {
        const n = Number(code ?? process.exitCode ?? 0);
        const inTask = addingTask !== null || runsUnderWay > 0;
        exitCall = { code: Number.isInteger(n) ? n : 1, duringRun: inTask, task: addingTask ?? (runsUnderWay > 0 ? currentTask : null) };
        write();
      }
    } catch { /* the exit goes on */ }
    return exit.call(process, code as number | undefined);
  } as typeof process.exit;
}

function main(): void {
  if (!isMainThread || !process.env[BENCH_OUT_ENV]) return;
  watchExit();
  Object.defineProperty(globalThis, Symbol.for(BENCH_FUNCTIONS_KEY), { value: functions, enumerable: false });
  if (process.execArgv.includes('--experimental-bench')) {
    harness = 'node:bench';
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const nb = require('node:bench') as Record<string, Fn>;
    const bench = nb.bench;
    nb.bench = function hotpathNodeBench(this: unknown, ...args: unknown[]) {
      const fn = args.find((a) => typeof a === 'function') as Fn | undefined;
      if (fn) functions.push({ name: typeof args[0] === 'string' ? args[0] : fn.name, fn });
      return bench.apply(this, args);
    };
    return;
  }
  const entry = path.resolve(process.argv[1] ?? '.');
  for (const file of tinybenchEntries(entry)) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ns = require(file) as { Bench?: { prototype: Record<string, unknown> } };
    if (ns?.Bench?.prototype) patchTinybench(ns.Bench);
  }
}

try { main(); } catch { /* never break the benchmark */ }
