import type { Warning } from '../common/warnings';
import type { LoadResult } from '../load/result';
import { SATURATED_CPU_PCT } from '../load/loadWarnings';
import type { ProfileModel } from '../profile/types';
import type { V8Collection } from '../v8/types';
import { perSecondSpread } from '../load/perSecondSpread';
import { formatInt, formatPct } from '../../shared/text/numbers';
import { defaultSamplingInterval } from '../profile/samplingInterval';
import type { ProfilerCost } from './profilerCost';

export const NODE_ENV_NOT_PRODUCTION = 'NODE_ENV_NOT_PRODUCTION';

/**
 * The most common way a profile lies: the app runs in development mode. Checked against the
 * NODE_ENV the app process itself saw (reported by the preload or read over the inspector).
 */
export function nodeEnvWarning(nodeEnv: string | null | undefined): Warning | undefined {
  if (nodeEnv === 'production') return undefined;
  // The first sentence stands alone in summaries (VS Code's "Profile saved: …" notification).
  const first = nodeEnv ? `The app ran with NODE_ENV=${nodeEnv}, not production.` : 'The app ran without NODE_ENV=production (NODE_ENV was not set).';
  return {
    code: NODE_ENV_NOT_PRODUCTION,
    message: `${first} Frameworks and template engines (Express's view cache, Pug, EJS, React SSR, many loggers) cache compiled templates and skip development checks only in production, so these numbers and hotspots may not be the ones your users hit. Re-run with NODE_ENV=production (CLI: add --env NODE_ENV=production).`,
  };
}

// ---------------------------------------------------------------------------------------------------
// The production-parity checklist: one list, shown before a run (what can be known from the request)
// and after it (what the run itself showed). Each check says what it saw and what to do.

export interface PreflightCheck {
  /** Stable id: node-env, sampling-interval, debugger, source-maps, v8-flags, load-generator, stability, target-cpu. */
  id: string;
  status: 'pass' | 'warn' | 'info';
  title: string;
  observed: string;
  advice?: string;
}

export interface BeforeRunInput {
  mode: 'launch' | 'attach' | 'script';
  /** The app's command (launch, script). */
  command?: string[];
  /** The environment the app will get: the request's env over this process's. */
  env?: Record<string, string | undefined>;
  /** Unset: chosen from the run's length (profile/samplingInterval.ts). */
  samplingIntervalMicros?: number;
  /** The measured window's length, s, when known (to say which interval an unset one becomes). */
  durationSeconds?: number;
  /** Attach: what the attached process reported, when known before the run. */
  nodeEnv?: string | null;
  execArgv?: string[];
}

/** What checksAfterRun reads from a result (ProfileResult and ScriptResult have these). */
export interface RunFacts {
  kind: string;
  target: { command: string[]; nodeEnv: string | null; execArgv?: string[]; nodeOptions?: string | null; sourceMapsEnabled?: boolean | null };
  load?: LoadResult | null;
  samplingIntervalMicros?: number;
  /** What V8's profiler thread cost the app over the window, measured in the run. */
  profilerCost?: ProfilerCost;
  model?: ProfileModel;
  v8?: V8Collection;
}

const pct = formatPct;

/**
 * Each check's title states what was found, so a list of them reads as findings: "✓ NODE_ENV is
 * production", "⚠ NODE_ENV is not production: NODE_ENV is not set …" — never a goal next to a failure.
 */
function nodeEnvCheck(nodeEnv: string | null | undefined, source: string, mode: 'launch' | 'attach' | 'script'): PreflightCheck {
  const observed = nodeEnv ? `NODE_ENV=${nodeEnv} ${source}` : `NODE_ENV is not set ${source}`;
  if (nodeEnv === 'production') return { id: 'node-env', status: 'pass', title: 'NODE_ENV is production', observed };
  // A script's behaviour depends on NODE_ENV only if it (or a tool it runs, e.g. a bundler) reads it;
  // the servers, template engines and frameworks the warning is about are not in play.
  if (mode === 'script') {
    return { id: 'node-env', status: 'info', title: 'NODE_ENV not checked for scripts', observed, advice: 'Set NODE_ENV=production only if the script or a tool it runs reads it (bundlers and some build tools do).' };
  }
  return {
    id: 'node-env', status: 'warn', title: 'NODE_ENV is not production', observed,
    advice: 'Frameworks cache templates and skip development checks only in production. Run with NODE_ENV=production (CLI: --env NODE_ENV=production).',
  };
}

/**
 * What sampling costs. After a run that could measure it, the figure is the run's own: the CPU time of
 * V8's profiler thread over the profiled window against the app's (profilerCost.ts). Otherwise (before
 * the run, another OS, an inspector reached by port) the sampling rate: `npm run bench -- overhead`
 * measured 25–70 µs of CPU per sample in V8's profiler thread and a few µs in the profiled thread.
 */
function samplingCheck(us: number | undefined, cost?: ProfilerCost, durationSeconds?: number): PreflightCheck {
  if (us === undefined) {
    const auto = durationSeconds !== undefined ? ` (${formatInt(defaultSamplingInterval(durationSeconds))} µs for this ${formatInt(durationSeconds)} s run)` : '';
    return { id: 'sampling-interval', status: 'pass', title: 'Sampling interval chosen from the run\'s length', observed: `about ${formatInt(5000)} samples over the measured window, never finer than every 1000 µs${auto}` };
  }
  if (cost) {
    const observed = `Profiler cost measured at +${cost.pct.toFixed(1)}% CPU per request: V8's profiler thread used ${formatInt(cost.profilerCpuMs)} ms while the app used ${formatInt(cost.appCpuMs)} ms (${formatInt(cost.samples)} samples, every ${formatInt(us)} µs)`;
    if (cost.pct <= 5) return { id: 'sampling-interval', status: 'pass', title: 'Sampling overhead low', observed };
    if (cost.pct <= 15) return { id: 'sampling-interval', status: 'info', title: 'Sampling overhead moderate', observed, advice: 'Fine for finding hotspots; compare throughput only between runs with the same interval, or sample less often (--sampling-interval).' };
    return { id: 'sampling-interval', status: 'warn', title: 'Sampling overhead high', observed, advice: 'The profiler itself takes a large share of the CPU, which distorts the app. Sample less often (a larger --sampling-interval) unless you need the resolution.' };
  }
  const observed = `every ${formatInt(us)} µs: ${formatInt(Math.round(1e6 / us))} samples a second, each costing the app tens of µs of CPU (the run measures it where it can)`;
  if (us >= 1000) return { id: 'sampling-interval', status: 'pass', title: 'Sampling overhead low', observed };
  if (us >= 250) return { id: 'sampling-interval', status: 'info', title: 'Sampling overhead moderate', observed, advice: 'Fine for finding hotspots; compare throughput only between runs with the same interval.' };
  return { id: 'sampling-interval', status: 'warn', title: 'Sampling overhead high', observed, advice: 'The profiler itself takes a large share of the CPU, which distorts the app. Leave the interval unset (chosen from the run\'s length) unless you need the resolution.' };
}

function argsOf(command: string[] | undefined, nodeOptions: string | null | undefined, execArgv: string[] | undefined): string[] {
  return [...(command ?? []), ...(nodeOptions ? nodeOptions.split(/\s+/) : []), ...(execArgv ?? [])].filter(Boolean);
}

function debuggerCheck(args: string[], neverCompiled: boolean): PreflightCheck {
  const brk = args.find((a) => /^--inspect-(brk|wait)(=|$)/.test(a));
  if (neverCompiled) {
    return { id: 'debugger', status: 'warn', title: 'A breakpoint kept hot code unoptimized', observed: 'V8 kept a hot function out of the optimizing compilers as it does under a breakpoint (see the V8 findings)', advice: 'Remove breakpoints and logpoints (or detach the debugger): functions under a breakpoint run in the interpreter, and the CPU profile charges their time to their callers.' };
  }
  if (brk) return { id: 'debugger', status: 'warn', title: 'Started for a debugger', observed: `the app is started with ${brk}`, advice: `${brk.split('=')[0]} stops the app for a debugger; a debugger that sets breakpoints keeps those functions in the interpreter. Start it without the flag (Hotpath opens its own inspector).` };
  const inspect = args.find((a) => /^--inspect(-port)?(=|$)/.test(a));
  if (inspect) return { id: 'debugger', status: 'info', title: 'Inspector open', observed: `the app is started with ${inspect}`, advice: 'An open inspector costs nothing by itself; make sure no debugger with breakpoints is attached while measuring.' };
  return { id: 'debugger', status: 'pass', title: 'No debugger attached', observed: 'no --inspect-brk, no breakpoints seen' };
}

function sourceMapsCheck(args: string[], enabled: boolean | null | undefined): PreflightCheck {
  const on = enabled === true || args.includes('--enable-source-maps');
  if (!on) return { id: 'source-maps', status: 'pass', title: 'Source-map support off', observed: 'no --enable-source-maps' };
  return {
    id: 'source-maps', status: 'warn', title: 'Source-map support on', observed: enabled === true ? 'on in the app (process.sourceMapsEnabled)' : '--enable-source-maps is set',
    advice: 'Node maps every stack trace through source maps when Error.stack is read, which Node\'s docs warn can be slow when errors are created or logged often. Leave it off while measuring unless production has it on; Hotpath maps positions itself.',
  };
}

function v8FlagsCheck(args: string[], optimizerOff: boolean): PreflightCheck {
  const flags = args.filter((a) => /^--(jitless|max-opt|no-opt|no-turbofan|no-maglev|no-sparkplug|lite-mode)\b/.test(a));
  if (flags.length || optimizerOff) {
    return { id: 'v8-flags', status: 'warn', title: 'V8 flags change the tiers', observed: flags.length ? flags.join(' ') : 'V8 reports optimization off for the process', advice: 'These flags change which tiers run your code; profile with the flags production uses.' };
  }
  return { id: 'v8-flags', status: 'pass', title: 'V8 optimizing compilers on', observed: 'no flags that change V8\'s tiers' };
}

/** What can be checked before the app runs: from the request alone. */
export function checksBeforeRun(input: BeforeRunInput): PreflightCheck[] {
  const env = input.env ?? {};
  const args = argsOf(input.command, env.NODE_OPTIONS ?? null, input.execArgv);
  const nodeEnv = input.mode === 'attach' ? input.nodeEnv : env.NODE_ENV ?? null;
  const checks: PreflightCheck[] = [];
  if (input.mode === 'attach' && input.nodeEnv === undefined) {
    checks.push({ id: 'node-env', status: 'info', title: 'NODE_ENV read once attached', observed: 'the process tells it when Hotpath attaches' });
  } else {
    checks.push(nodeEnvCheck(nodeEnv, input.mode === 'attach' ? 'in the attached process' : 'in the environment the app gets', input.mode));
  }
  checks.push(samplingCheck(input.samplingIntervalMicros, undefined, input.durationSeconds), debuggerCheck(args, false), sourceMapsCheck(args, undefined), v8FlagsCheck(args, false));
  return checks;
}

function loadGeneratorCheck(load: LoadResult): PreflightCheck {
  const cpu = load.loadGeneratorCpuPct;
  const observed = `autocannon used ${pct(cpu)} of a core`;
  if (cpu > SATURATED_CPU_PCT) return { id: 'load-generator', status: 'warn', title: 'Load generator saturated', observed, advice: 'The load generator shares this machine\'s cores with the app and is the likely limit. Use fewer connections, add --pipelining, or run the load from another machine.' };
  if (cpu > 60) return { id: 'load-generator', status: 'info', title: 'Load generator near saturation', observed, advice: 'Close to saturation: the app and autocannon compete for the same cores.' };
  return { id: 'load-generator', status: 'pass', title: 'Load generator not saturated', observed };
}

/** Spread of the per-second request counts (perSecondSpread: the figure the load line quotes too). */
function stabilityCheck(load: LoadResult): PreflightCheck {
  const spread = perSecondSpread(load.requests.perSecond);
  if (!spread) {
    const n = load.requests.perSecond.length;
    return { id: 'stability', status: 'info', title: 'Run too short to judge stability', observed: `${n} per-second sample${n === 1 ? '' : 's'}`, advice: 'Use --duration 10 or more for a judgement of stability.' };
  }
  const observed = `req/s varied ±${formatPct(spread.cvPct)} second to second (min ${formatInt(spread.min)}, max ${formatInt(spread.max)}${spread.firstSecondDropped ? '; first second left out' : ''})`;
  if (spread.cvPct > 15) return { id: 'stability', status: 'warn', title: 'Unstable run', observed, advice: 'Something else competes for the machine (other processes, GC pauses, thermal throttling) or the app has phases. Close other work, lengthen --warmup and --duration, and compare runs with caution.' };
  if (spread.cvPct > 5) return { id: 'stability', status: 'info', title: 'Moderately stable run', observed, advice: 'Moderate variation: differences of a few percent between runs are noise.' };
  return { id: 'stability', status: 'pass', title: 'Stable run', observed };
}

/** From the profile: the share of the profiled time the main thread had nothing to run. */
function targetCpuCheck(model: ProfileModel): PreflightCheck {
  const idle = model.durationUs > 0 ? (100 * model.idleUs) / model.durationUs : 0;
  const observed = `the app's main thread was busy ${pct(100 - idle)} of the profiled time (idle ${pct(idle)})`;
  if (idle > 50) return { id: 'target-cpu', status: 'warn', title: 'App mostly idle under this load', observed, advice: 'The app mostly waited: the bottleneck is elsewhere (I/O, a database or downstream service, too few connections, or the load generator). A CPU profile explains only the busy part; raise --connections or look at what requests wait on.' };
  if (idle > 20) return { id: 'target-cpu', status: 'info', title: 'App not CPU-bound under this load', observed, advice: 'The app had spare CPU: more load (--connections) would show its limit.' };
  return { id: 'target-cpu', status: 'pass', title: 'App CPU-bound under this load', observed };
}

/** The list again after the run, with what the run itself showed. */
export function checksAfterRun(result: RunFacts): PreflightCheck[] {
  const t = result.target;
  const args = argsOf(t.command, t.nodeOptions, t.execArgv);
  const findings = result.v8?.findings ?? [];
  const checks: PreflightCheck[] = [nodeEnvCheck(t.nodeEnv, 'as the app reported it', result.kind === 'script' ? 'script' : 'launch')];
  if (result.samplingIntervalMicros !== undefined) checks.push(samplingCheck(result.samplingIntervalMicros, result.profilerCost));
  checks.push(
    debuggerCheck(args, findings.some((f) => f.id === 'V8_HOT_FUNCTION_NEVER_COMPILED')),
    sourceMapsCheck(args, t.sourceMapsEnabled),
    v8FlagsCheck(args, findings.some((f) => f.id === 'V8_OPTIMIZER_OFF')),
  );
  if (result.load) checks.push(loadGeneratorCheck(result.load), stabilityCheck(result.load));
  if (result.load && result.model) checks.push(targetCpuCheck(result.model));
  return checks;
}
