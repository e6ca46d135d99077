/**
 * `hotpath bench FILE`: run a tinybench (or node:bench) file in K fresh processes, each with V8's view
 * of the benchmarked functions collected in the same run; per task ops/s, mean and p99 per operation
 * with their intervals across processes, V8's tier, deopts and inlining, and the warnings a benchmark
 * expert gives. Then, when asked: an interleaved comparison of two tasks or two files (A B B A process
 * pairs, paired log ratios), or a comparison with a stored baseline; or store this run as one.
 */
import * as path from 'node:path';
import { execFile } from 'node:child_process';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { PROFILE_NAMED_FILE_MAX_BYTES, readBoundedFileSync } from '../common/boundedRead';
import { errorMessage, ErrorCode, HotpathError, invalidOption } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import type { Warning } from '../common/warnings';
import { aggregateTask, type BenchTask } from '../bench/aggregate';
import { runBenchmarkOnce, type BenchHarness, type BenchRun } from '../bench/benchRun';
import { detectHarness } from '../bench/detect';
import { benchBaselineDir, loadBenchBaseline, saveBenchBaseline, type BenchBaseline } from '../bench/store';
import type { V8Collection } from '../v8/types';
import { compareIndependent, DEFAULT_AB_SETTINGS, runAbComparison, type MetricComparisonSet, type MetricSpecs } from './abEngine';
import type { ProgressSink } from './progress';
import { formatRatio, formatSignedPct } from '../../shared/text/numbers';

export interface BenchRequest {
  file: string;
  cwd: string;
  /** The node binary to run the file with (default: `node` on the PATH). */
  node?: string;
  env?: Record<string, string | undefined>;
  /** Processes (default 5). */
  runs?: number;
  /** Only these tasks. */
  tasks?: string[];
  v8?: boolean;
  timeoutMs?: number;
  /** Interleaved comparison of two tasks of the file: b against a. */
  compareTasks?: [string, string];
  /** Interleaved comparison with another file (its tasks of the same names): this file is a, that one b. */
  against?: string;
  /** Exactly this many pairs (default: adaptive, 5 to 20, until the ratio is known to ±3%). */
  pairs?: number;
  /** Store this run's per-process means as a baseline. */
  save?: string;
  /** Compare this run with a stored baseline. */
  baseline?: string;
}

export interface BenchComparison extends MetricComparisonSet {
  kind: 'tasks' | 'files' | 'baseline';
  /** What a and b are (task names, files, the baseline). */
  a: string;
  b: string;
  pairs: number;
  summary: string;
}

export interface BenchResult {
  kind: 'bench';
  file: string;
  harness: BenchHarness;
  harnessVersion: string | null;
  nodeVersion: string | null;
  runs: number;
  tasks: BenchTask[];
  /** With --against: the other file's tasks, measured the same way. */
  against?: { file: string; tasks: BenchTask[] };
  comparison?: BenchComparison;
  baselinePath?: string;
  v8?: V8Collection;
  warnings: Warning[];
}

export interface BenchDeps {
  token?: CancellationToken;
  logger?: Logger;
  onProgress?: ProgressSink;
}

function versionOf(node: string): Promise<string | null> {
  return new Promise((resolve) => execFile(node, ['--version'], { timeout: 10_000 }, (err, out) => resolve(err ? null : out.trim())));
}

export async function harnessOf(file: string, node: string): Promise<BenchHarness> {
  let source: string;
  try { source = readBoundedFileSync(file, PROFILE_NAMED_FILE_MAX_BYTES).toString('utf8'); } catch (err) {
    throw invalidOption(`Cannot read the benchmark file ${file}: ${errorMessage(err)}.`);
  }
  const harness = detectHarness(source);
  if (!harness) throw invalidOption(`${file} imports neither tinybench nor node:bench. \`hotpath bench\` runs benchmark files written for tinybench (\`import { Bench } from 'tinybench'\`) or node:bench (Node 26.9+).`);
  if (harness === 'node:bench') {
    const v = await versionOf(node);
    const [major, minor] = (v ?? '').replace(/^v/, '').split('.').map(Number);
    if (!(major > 26 || (major === 26 && minor >= 9))) throw invalidOption(`${file} is written for node:bench, which needs Node 26.9 or later (this node is ${v ?? 'unknown'}). Run it with a newer node (--node), or write it for tinybench.`);
  }
  return harness;
}

/** Tasks in first-seen order, aggregated over the runs. */
function tasksOf(runs: BenchRun[]): BenchTask[] {
  const names: string[] = [];
  for (const r of runs) for (const t of r.results.tasks) if (!names.includes(t.name)) names.push(t.name);
  const floors = runs.map((r) => r.results.floorNs).filter((x): x is number => x !== null && x > 0);
  const floorsP50 = runs.map((r) => r.results.floorP50Ns).filter((x): x is number => typeof x === 'number' && x > 0);
  const floorsP75 = runs.map((r) => r.results.floorP75Ns).filter((x): x is number => typeof x === 'number' && x > 0);
  return names.map((name) => {
    const leaf = name.split(' › ').pop()!;
    const v8 = runs.map((r) => r.v8.get(name) ?? r.v8.get(leaf)).find((x) => x !== undefined) ?? null;
    // The last result per process for the task (a file may run a Bench twice).
    const taskRuns = runs.map((r) => [...r.results.tasks].reverse().find((t) => t.name === name)).filter((t) => t !== undefined);
    return aggregateTask({ name, runs: taskRuns, floorsNs: floors, floorsP50Ns: floorsP50, floorsP75Ns: floorsP75, v8 });
  });
}

const pct = (ratio: number) => formatSignedPct((ratio - 1) * 100);

function summaryOf(kind: BenchComparison['kind'], a: string, b: string, set: MetricComparisonSet, metric: string): string {
  const m = set.metrics[metric];
  if (!m) return 'No comparison: no task was measured on both sides.';
  const speed = 1 / m.ratio;
  const what = kind === 'baseline' ? `${b} against the baseline ${a}` : `"${b}" against "${a}"`;
  if (set.verdict === 'no-significant-change') return `${what}: no significant change (time per operation ${pct(m.ratio)}; ${set.method}).`;
  return `${what}: ${set.verdict} — ${speed >= 1 ? `${formatRatio(speed)} the operations per second` : `${formatRatio(1 / speed)} the time per operation`} (time per operation ${pct(m.ratio)}, ${m.ciLow !== null ? `interval ${pct(m.ciLow)} … ${pct(m.ciHigh!)}` : 'no interval'}).`;
}

/** After the first process: the tasks --compare names exist, and the baseline shares a task with the run. */
function checkTargets(file: string, names: string[], compareTasks: [string, string] | undefined, base: BenchBaseline | undefined): void {
  for (const name of compareTasks ?? []) if (!names.includes(name)) throw invalidOption(`--compare: ${file} has no task named '${name}' (its tasks: ${names.join(', ')}).`);
  if (base && !names.some((n) => base.tasks[n])) throw invalidOption(`The baseline '${base.name}' has no task of this run (${Object.keys(base.tasks).join(', ')}).`);
}

/** The task names both files share (--against), or a usage error that lists both sides. */
function commonTaskNames(file: string, other: string, mine: string[], theirs: string[]): string[] {
  const common = mine.filter((n) => theirs.includes(n));
  if (!common.length) throw invalidOption(`--against: ${file} and ${other} have no task of the same name (${mine.join(', ')} / ${theirs.join(', ')}); use --tasks to pick, or name them alike.`);
  return common;
}

export async function runBench(request: BenchRequest, deps: BenchDeps = {}): Promise<BenchResult> {
  const token = deps.token ?? neverCancelled;
  const logger = deps.logger ?? silentLogger;
  const progress = deps.onProgress ?? (() => {});
  const file = path.resolve(request.cwd, request.file);
  const node = request.node ?? 'node';
  const harness = await harnessOf(file, node);
  const K = request.runs ?? 5;
  if (!(K >= 1)) throw invalidOption(`--runs must be at least 1 (got ${K}).`);
  if (request.compareTasks && request.against) throw invalidOption('Use --compare (two tasks of one file) or --against (another file), not both.');
  const comparing = Boolean(request.compareTasks || request.against);
  const share = comparing ? 0.4 : 1;
  const timeoutMs = request.timeoutMs ?? 600_000;
  const once = (f: string, extra: Partial<Parameters<typeof runBenchmarkOnce>[0]> = {}) =>
    runBenchmarkOnce({ file: f, cwd: request.cwd, node, harness, tasks: request.tasks, env: request.env, v8: request.v8, timeoutMs, ...extra }, { token, logger });

  // What the run is compared with is checked before the first process (the other file, the stored
  // baseline) or right after it (task names): a missing one fails now, not after every process ran.
  const dir = benchBaselineDir(request.cwd);
  const other = request.against !== undefined ? path.resolve(request.cwd, request.against) : undefined;
  if (other && await harnessOf(other, node) !== harness) throw invalidOption(`${other} is written for another harness than ${file}; compare files of the same harness.`);
  const base = request.baseline !== undefined ? await loadBenchBaseline(dir, request.baseline) : undefined;

  const runs: BenchRun[] = [];
  for (let i = 0; i < K; i++) {
    throwIfCancelled(token);
    progress({ stage: 'measuring', message: `Benchmark process ${i + 1} of ${K}: ${path.basename(file)}`, fraction: (share * i) / K / (request.against ? 2 : 1) });
    runs.push(await once(file));
    if (i === 0) checkTargets(file, tasksOf(runs).map((t) => t.name), request.compareTasks, base);
  }
  const tasks = tasksOf(runs);
  const warnings: Warning[] = [];
  if (K === 1) warnings.push({ code: 'ONE_PROCESS', message: 'One process only: the intervals are the harness\'s own, within one process, and leave out how much a fresh process differs (JIT decisions, heap layout, machine load). Use --runs 5 or more for intervals you can compare.' });
  const result: BenchResult = {
    kind: 'bench', file, harness, harnessVersion: runs[0].results.harnessVersion, nodeVersion: runs[0].nodeVersion, runs: K, tasks, warnings,
    ...(runs[0].v8Collection ? { v8: runs[0].v8Collection } : {}),
  };

  if (other) {
    const againstRuns: BenchRun[] = [];
    for (let i = 0; i < K; i++) {
      throwIfCancelled(token);
      progress({ stage: 'measuring', message: `Benchmark process ${i + 1} of ${K}: ${path.basename(other)}`, fraction: share * (0.5 + i / K / 2) });
      againstRuns.push(await once(other));
      if (i === 0) commonTaskNames(file, other, tasks.map((t) => t.name), tasksOf(againstRuns).map((t) => t.name));
    }
    result.against = { file: other, tasks: tasksOf(againstRuns) };
  }

  const settings = { ...DEFAULT_AB_SETTINGS, minPairs: 5, maxPairs: 20, targetHalfWidthPct: 3, budgetMs: 300_000, warmupRounds: 1, ...(request.pairs ? { fixedPairs: request.pairs } : {}) };
  if (request.compareTasks) {
    const [a, b] = request.compareTasks;
    const specs: MetricSpecs = { meanNs: { label: 'time per operation', unit: 'ns', better: 'lower', inVerdict: true }, p99Ns: { label: 'p99 per operation', unit: 'ns', better: 'lower', inVerdict: false } };
    const outcome = await runAbComparison(specs, 'meanNs', settings, {
      token,
      onState: (s) => progress({ stage: 'measuring', message: `Comparing "${b}" with "${a}": pair ${s.pairs + 1}${s.comparison?.metrics.meanNs?.halfWidthPct ? ` (±${s.comparison.metrics.meanNs.halfWidthPct.toFixed(1)}% so far)` : ''}`, fraction: share + (1 - share) * s.fraction }),
      measure: async (side) => {
        const task = side === 'a' ? a : b;
        const r = await once(file, { tasks: [task], floor: false, v8: false });
        const t = r.results.tasks.find((x) => x.name === task && !x.error);
        if (!t) throw new HotpathError(ErrorCode.TargetExited, `The task '${task}' did not complete in a comparison run.`);
        return { meanNs: t.meanNs, p99Ns: t.p99Ns };
      },
    });
    result.comparison = { ...outcome.comparison, kind: 'tasks', a, b, pairs: outcome.pairs, summary: summaryOf('tasks', a, b, outcome.comparison, 'meanNs') };
  } else if (other) {
    const common = commonTaskNames(file, other, tasks.map((t) => t.name), result.against!.tasks.map((t) => t.name));
    const specs: MetricSpecs = Object.fromEntries(common.map((n) => [`meanNs:${n}`, { label: `${n} time per operation`, unit: 'ns', better: 'lower', inVerdict: true }]));
    const outcome = await runAbComparison(specs, `meanNs:${common[0]}`, settings, {
      token,
      onState: (s) => progress({ stage: 'measuring', message: `Comparing ${path.basename(other)} with ${path.basename(file)}: pair ${s.pairs + 1}`, fraction: share + (1 - share) * s.fraction }),
      measure: async (side) => {
        const r = await once(side === 'a' ? file : other, { tasks: common, floor: false, v8: false });
        return Object.fromEntries(common.map((n) => [`meanNs:${n}`, r.results.tasks.find((t) => t.name === n && !t.error)?.meanNs ?? NaN]));
      },
    });
    result.comparison = { ...outcome.comparison, kind: 'files', a: path.relative(request.cwd, file), b: path.relative(request.cwd, other), pairs: outcome.pairs, summary: summaryOf('files', path.basename(file), path.basename(other), outcome.comparison, `meanNs:${common[0]}`) };
  }

  if (base) {
    const common = tasks.filter((t) => base.tasks[t.name] && t.runMeansNs.length);
    const specs: MetricSpecs = Object.fromEntries(common.map((t) => [`meanNs:${t.name}`, { label: `${t.name} time per operation`, unit: 'ns', better: 'lower', inVerdict: true }]));
    const set = compareIndependent(specs, Object.fromEntries(common.map((t) => [`meanNs:${t.name}`, { a: base.tasks[t.name].runMeansNs, b: t.runMeansNs }])));
    result.comparison = { ...set, kind: 'baseline', a: base.name, b: path.basename(file), pairs: 0, summary: summaryOf('baseline', base.name, path.basename(file), set, `meanNs:${common[0].name}`) };
    if (base.nodeVersion && result.nodeVersion && base.nodeVersion !== result.nodeVersion) {
      warnings.push({ code: 'NODE_VERSION_DIFFERS', message: `The baseline ran on Node ${base.nodeVersion}, this run on ${result.nodeVersion}: the comparison measures the runtime change too.` });
    }
    warnings.push({ code: 'BASELINE_NOT_INTERLEAVED', message: `The baseline's processes ran at another time (${base.createdAt}), under whatever else the machine did then; an interleaved comparison (--compare or --against) cancels that drift.` });
  }
  if (request.save) {
    result.baselinePath = await saveBenchBaseline(dir, {
      version: 1, name: request.save, createdAt: new Date().toISOString(), file, nodeVersion: result.nodeVersion,
      tasks: Object.fromEntries(tasks.filter((t) => t.runMeansNs.length).map((t) => [t.name, { runMeansNs: t.runMeansNs, p99Ns: runs.map((r) => r.results.tasks.find((x) => x.name === t.name)?.p99Ns ?? 0).filter((x) => x > 0) }])),
    });
  }
  progress({ stage: 'analyzing', message: 'Done', fraction: 1 });
  return result;
}
