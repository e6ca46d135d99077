/**
 * Collects V8's signals in the same run that records the CPU profile, over the same inspector
 * session: start() before the warm-up switches V8's tracing on (flags.ts) and proves it works with a
 * probe; finish() after Profiler.stop reads each function's tier (%GetOptimizationStatus over a heap
 * query), switches everything off again and parses the trace. Nothing here throws at the workflow:
 * whatever cannot be collected becomes `collection.limitation`, and the profile is never at risk.
 */
import * as fs from 'node:fs';
import type { Disposable } from '../common/disposable';
import { PROFILE_NAMED_FILE_MAX_BYTES, readBoundedFileSync } from '../common/boundedRead';
import { errorMessage } from '../common/errors';
import type { Event } from '../common/events';
import { type Logger, silentLogger } from '../common/logger';
import type { CdpSession } from '../inspector/cdpClient';
import type { RawCpuProfile } from '../inspector/profilingRun';
import { conflictingFlags, DISABLE_FLAGS, enableFlags, NATIVES_OFF, NATIVES_ON, redirectFlags, traceFileFor, TRACING_OFF } from './flags';
import { InliningTraceReader } from './inliningTrace';
import { protectorFindings } from './explain';
import { buildRawFunctions, type FunctionStatus, normalizeFile } from './raw';
import { lineStarts, positionAt, ScriptTable } from './scripts';
import { calibrateLayout, optimizerDisabled, type StatusLayout, tierFromStatus } from './statusBits';
import { DESCRIBE_EXPRESSION, guardExpression, PROTECTORS_EXPRESSION, setFlagsExpression, STATUS_QUERY_FUNCTION, UNGUARD_EXPRESSION, windowedProbeExpression } from './targetScripts';
import { parseTrace, PROBE_NAME, strayDependencyTails } from './traceParser';
import { V8_SIGNALS_VERSION, type V8Collection, type V8FunctionRef, type V8RawSignals, type V8Tier } from './types';

export type V8Mode = V8RawSignals['mode'];

export interface V8CollectorOptions {
  mode: V8Mode;
  logger?: Logger;
  /** Launch and script mode: the target's output, where TurboFan prints its inlining decisions. */
  output?: Event<string>;
  /**
   * The app switches the signals off by itself after this long, should Hotpath never do it (killed,
   * connection lost): attaching must never leave a production process tracing. Default: no guard.
   */
  guardSeconds?: number;
  /**
   * Leave V8's tracing off after the set-up until startTracing(): the process's worker threads are set
   * up first, each isolate with a trace file of its own (collector.ts startWorker, WorkerSignals).
   */
  deferTracing?: boolean;
}

interface Described {
  nodeVersion: string;
  maglev: boolean;
  execArgv: string[];
  nodeOptions: string | null;
  nodeEnv: string | null;
  sourceMapsEnabled: boolean | null;
}

interface ProfileNodeLike { callFrame?: { functionName?: string; scriptId?: string; url?: string; lineNumber?: number; columnNumber?: number } }

const OBJECT_GROUP = 'hotpath-v8';
/** What an unread protector cell hides: the limitation says it. */
const UNREPORTED_BUILTINS = 'so a modified built-in (Array.prototype, species, iterators) would not be reported';

async function evaluate<T>(session: CdpSession, expression: string): Promise<T> {
  const r = await session.send<{ result?: { value?: unknown }; exceptionDetails?: { text?: string; exception?: { description?: string } } }>(
    'Runtime.evaluate', { expression, returnByValue: true, silent: true });
  if (r.exceptionDetails) throw new Error((r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? 'exception').split('\n')[0]);
  return r.result?.value as T;
}

function tiersOf(maglev: boolean): V8Tier[] {
  return maglev ? ['Ignition', 'Sparkplug', 'Maglev', 'TurboFan'] : ['Ignition', 'Sparkplug', 'TurboFan'];
}

export class V8Collector {
  private layout: StatusLayout | undefined;
  private active = false;
  private finished: Promise<V8RawSignals> | undefined;
  private readonly notes: string[] = [];
  private inlining: InliningTraceReader | undefined;
  private outputSub: Disposable | undefined;
  private optimizerOff: string | undefined;
  private tracingStopped = false;
  /** Deopt trace lines whose end V8 printed on the app's stdout instead of our file (see strayDependencyTails). */
  private strayStdoutLines = 0;
  /**
   * A worker thread's isolate: its own trace file, but V8's flags are the process's, switched on and off
   * by the main thread's collector (`parent`), whose stdout reader also has the inlining refusals.
   */
  private parent: V8Collector | undefined;
  /** The process's tracing is on (the main thread's collector switches it on for every isolate). */
  private tracingOn = false;

  private constructor(
    private readonly session: CdpSession,
    readonly pid: number,
    private readonly options: V8CollectorOptions,
    private readonly traceFile: string,
    private described: Described | undefined,
  ) {}

  private get logger(): Logger { return this.options.logger ?? silentLogger; }

  /** Switches the signals on in the target. Never throws: a collector that could not start says why. */
  static async start(session: CdpSession, pid: number, options: V8CollectorOptions): Promise<V8Collector> {
    let traceFile = '';
    try { traceFile = traceFileFor(pid); } catch (err) {
      const c = new V8Collector(session, pid, options, '', undefined);
      c.notes.push(`no private directory for V8's trace (${errorMessage(err)})`);
      return c;
    }
    const collector = new V8Collector(session, pid, options, traceFile, undefined);
    await collector.begin();
    return collector;
  }

  /**
   * Signals of a worker thread's isolate, collected alongside the main thread's (`main`, already started).
   * V8 writes each isolate's code trace to the file `--redirect-code-traces-to` named when that isolate
   * traced for the first time, and starts the file afresh then; so the worker's file is named, and its
   * isolate made to trace (the probe), before it runs anything else of ours — one worker at a time
   * (WorkerHub runs setups in turn). Never throws; a worker whose signals cannot be collected says why.
   */
  static async startWorker(main: V8Collector, session: CdpSession, workerId: string): Promise<V8Collector> {
    const options: V8CollectorOptions = { mode: main.options.mode, logger: main.options.logger };
    let traceFile = '';
    try { traceFile = traceFileFor(main.pid, workerId); } catch (err) {
      const c = new V8Collector(session, main.pid, options, '', undefined);
      c.notes.push(`no private directory for V8's trace (${errorMessage(err)})`);
      return c;
    }
    const collector = new V8Collector(session, main.pid, options, traceFile, undefined);
    collector.parent = main;
    if (!main.active) collector.notes.push('V8\'s tracing could not be switched on in the process (see the main thread\'s limitation)');
    else await collector.begin();
    return collector;
  }

  private async begin(): Promise<void> {
    const { session } = this;
    try {
      this.described = JSON.parse(await evaluate<string>(session, DESCRIBE_EXPRESSION));
    } catch (err) {
      this.notes.push(`the target could not be inspected (${errorMessage(err)})`);
      return;
    }
    const conflicts = conflictingFlags(this.described!.execArgv);
    if (conflicts.length) {
      this.notes.push(`the app already runs with ${conflicts.join(' ')}, whose output Hotpath would take over, so it leaves V8's tracing alone`);
      return;
    }
    try {
      fs.rmSync(this.traceFile, { force: true }); // a previous attach's leftovers; V8 appends
      const stdoutTraces = this.parent ? this.parent.inlining !== undefined : this.options.mode !== 'attach' && this.options.output !== undefined;
      // Where this isolate traces to (fixed by its first trace line: the probe's) and natives to parse the
      // probe; tracing itself only around the probe, unless it is to stay on (see windowedProbeExpression).
      await evaluate(session, setFlagsExpression(`${redirectFlags(this.traceFile)} ${NATIVES_ON}`));
      const stayOn = this.parent ? this.parent.tracingOn : !this.options.deferTracing;
      let probe: [number, number] | undefined;
      try { probe = await evaluate<[number, number]>(session, windowedProbeExpression(enableFlags(this.traceFile, { stdoutTraces }), stayOn ? undefined : TRACING_OFF)); } finally {
        await evaluate(session, setFlagsExpression(NATIVES_OFF)).catch(() => undefined);
      }
      if (stayOn && !this.parent) this.tracingOn = true;
      this.layout = probe ? calibrateLayout(probe[0], probe[1]) : undefined;
      if (probe && optimizerDisabled(probe[1])) {
        const flags = this.described!.execArgv.filter((a) => /^--(jitless|max-opt|no-opt|no-turbofan|no-maglev|lite-mode)\b/.test(a));
        this.optimizerOff = flags.length ? flags.join(' ') : 'the optimizing compilers are off in this process';
      }
      if (!this.layout) this.notes.push(`this V8 (Node ${this.described!.nodeVersion}) reports optimization status bits Hotpath does not know (probe: ${probe?.map((n) => '0x' + n.toString(16)).join(', ')}), so tiers are unknown`);
      // Without an optimizer there is nothing for the probe to compile, hence no trace line: the tiers
      // (all unoptimized) are still worth reading.
      // Once more when the probe is not there: another thread's isolate that traced for the first time
      // during the window started this file afresh (V8 does on a code tracer's creation); it cannot again.
      if (!this.optimizerOff && !(await this.traceReachesFile()) && !(await this.probeAgain(stayOn))) {
        await this.switchOff();
        this.notes.push(`V8 accepted the trace flags but wrote nothing to ${this.traceFile}: the target cannot write there (another user, a container's /tmp) or its code tracer was set up earlier with another destination`);
        return;
      }
      this.active = true;
      if (this.options.guardSeconds) await evaluate(session, guardExpression(DISABLE_FLAGS, this.options.guardSeconds * 1000));
      // A worker's inlining refusals are on the same stdout, read by the main thread's collector.
      if (stdoutTraces && !this.parent) {
        this.inlining = new InliningTraceReader();
        const reader = this.inlining;
        this.outputSub = this.options.output!((chunk) => reader.push(chunk));
      }
      this.logger.info(`V8 signals on in PID ${this.pid} (trace: ${this.traceFile})`);
    } catch (err) {
      await this.switchOff();
      this.notes.push(`V8's flags could not be set in the target (${errorMessage(err)})`);
    }
  }

  /** The probe's trace line in our file (a compile may be logged a moment after the evaluation returns). */
  private async probeAgain(stayOn: boolean): Promise<boolean> {
    const stdoutTraces = this.parent ? this.parent.inlining !== undefined : this.options.mode !== 'attach' && this.options.output !== undefined;
    try {
      await evaluate(this.session, setFlagsExpression(NATIVES_ON));
      await evaluate(this.session, windowedProbeExpression(enableFlags(this.traceFile, { stdoutTraces }), stayOn ? undefined : TRACING_OFF));
    } catch { return false; } finally {
      await evaluate(this.session, setFlagsExpression(NATIVES_OFF)).catch(() => undefined);
    }
    return this.traceReachesFile();
  }

  private async traceReachesFile(): Promise<boolean> {
    for (let attempt = 0; attempt < 10; attempt++) {
      try { if (fs.readFileSync(this.traceFile, 'utf8').includes(PROBE_NAME)) return true; } catch { /* not created yet */ }
      await new Promise((r) => setTimeout(r, 20));
    }
    return false;
  }

  private async switchOff(): Promise<void> {
    // A worker's collector never turns the process's tracing off (the main thread's still runs): only natives.
    if (this.parent) { await evaluate(this.session, setFlagsExpression(NATIVES_OFF)).catch(() => undefined); return; }
    await evaluate(this.session, setFlagsExpression(DISABLE_FLAGS)).catch(() => undefined);
    if (this.options.guardSeconds) await evaluate(this.session, UNGUARD_EXPRESSION).catch(() => undefined);
  }

  get isActive(): boolean { return this.active; }

  /**
   * Switches V8's tracing on for the whole process (with `deferTracing`, once the worker threads running
   * now have their own trace files); isolates set up later get theirs before they run.
   */
  async startTracing(): Promise<void> {
    if (!this.active || this.parent || this.tracingOn || this.tracingStopped) return;
    this.tracingOn = true;
    const stdoutTraces = this.inlining !== undefined;
    await evaluate(this.session, setFlagsExpression(enableFlags(this.traceFile, { stdoutTraces }))).catch((err) => {
      this.notes.push(`V8's tracing could not be switched on (${errorMessage(err)})`);
    });
  }

  /**
   * Ends the traced window: call when the measured load ends, before Profiler.stop — stopping the
   * profiler and reading source maps (Debugger.enable) make V8 throw optimized code away, and those
   * are Hotpath's doing, not the app's.
   */
  async stopTracing(): Promise<void> {
    if (!this.active || this.tracingStopped) return;
    this.tracingStopped = true;
    await this.switchOff();
  }

  /**
   * Reads the tiers, switches the signals off and builds the result. `profile` is the main thread's
   * CPU profile (its functions are the ones worth a status). With `targetGone` the process has exited:
   * only the trace file is read (tiers then come from the last traced event).
   */
  finish(profile: RawCpuProfile | undefined, options: { targetGone?: boolean } = {}): Promise<V8RawSignals> {
    this.finished ??= this.collect(profile, options.targetGone === true);
    return this.finished;
  }

  private async collect(profile: RawCpuProfile | undefined, targetGone: boolean): Promise<V8RawSignals> {
    this.outputSub?.dispose();
    const d = this.described;
    const result: V8RawSignals = {
      version: V8_SIGNALS_VERSION,
      mode: this.options.mode,
      collection: { collected: false, nodeVersion: d?.nodeVersion ?? 'unknown', ...(d ? { tiers: tiersOf(d.maglev) } : {}) },
      functions: [],
      ...(this.optimizerOff ? { optimizerDisabled: this.optimizerOff } : {}),
    };
    if (!this.active) return this.done(result);
    const profileFunctions = profileFunctionsOf(profile);
    let statuses: FunctionStatus[] = [];
    let scripts: ScriptTable | undefined;
    // Whether the protector cells were read, or their failure said: a modified built-in is reported only
    // from them, so a run that could not read them says so rather than reporting none (census50: on a busy
    // machine the end-of-run query failed with "Cannot find context with specified id" on Node 26).
    let protectorsSaid = false;
    try {
      if (targetGone) throw new Error('gone');
      await this.stopTracing();
      await evaluate(this.session, setFlagsExpression(NATIVES_ON));
      try {
        const facts = JSON.parse(await evaluate<string>(this.session, DESCRIBE_EXPRESSION)) as Described;
        result.target = { execArgv: facts.execArgv, nodeOptions: facts.nodeOptions, sourceMapsEnabled: facts.sourceMapsEnabled, nodeEnv: facts.nodeEnv };
        const findings = protectorFindings(JSON.parse(await evaluate<string>(this.session, PROTECTORS_EXPRESSION)));
        if (findings.length) result.collection.findings = findings;
      } catch (err) {
        this.logger.warn(`V8 protector check failed: ${errorMessage(err)}`);
        this.notes.push(`V8's protector cells could not be read (${errorMessage(err)}), ${UNREPORTED_BUILTINS}`);
      }
      protectorsSaid = true;
      const trace = this.readTrace();
      scripts = await ScriptTable.load(this.session);
      const files = new Set<string>([
        ...profileFunctions.map((p) => p.file),
        ...trace.compiles.flatMap((c) => [c.outer.file, ...c.inlinees.map((i) => i.callee.file)]).map(normalizeFile),
        ...[...trace.functions.values()].map((f) => normalizeFile(f.file)).filter(Boolean),
      ]);
      await scripts.fetchSources(files);
      statuses = await this.queryStatuses(scripts, profileFunctions, trace);
      result.tiersRead = this.layout ? 'ok' : 'unknown-layout';
      result.functions = this.build(trace, statuses, profileFunctions, scripts);
    } catch (err) {
      result.tiersRead = targetGone ? 'process-exited' : 'failed';
      if (!targetGone) {
        this.logger.warn(`V8 status query failed: ${errorMessage(err)}`);
        this.notes.push(`the end-of-run tiers${protectorsSaid ? '' : ' and protector cells'} could not be read (${errorMessage(err)})${protectorsSaid ? '' : `, ${UNREPORTED_BUILTINS}`}`);
      } else {
        this.notes.push(`the process had exited before its tiers and protector cells could be read, so each tier is the one its last traced (de)optimization left, ${UNREPORTED_BUILTINS}`);
      }
      result.functions = this.build(this.readTrace(), [], profileFunctions, scripts);
    } finally {
      if (!targetGone) {
        await this.session.trySend('Runtime.releaseObjectGroup', { objectGroup: OBJECT_GROUP });
        await this.switchOff();
      }
      fs.rmSync(this.traceFile, { force: true });
    }
    result.collection.collected = true;
    if (this.options.mode === 'attach') {
      this.notes.push('attached: optimizations and deopts are counted from the moment Hotpath attached (V8 traces nothing about earlier ones), and TurboFan\'s inlining refusals are not collected (V8 prints them only on the app\'s own stdout)');
      // V8 prints the end of its "marking dependent code" line with a bare PrintF, past the redirect.
      if (this.strayStdoutLines) this.notes.push(`V8 wrote ${this.strayStdoutLines} line${this.strayStdoutLines === 1 ? '' : 's'} ending "for deoptimization, reason: …]" to the app's stdout (a V8 bug: that part of its deopt trace ignores the redirect to Hotpath's file)`);
    }
    if (d?.maglev) this.notes.push('Maglev\'s own inlining is not reported (V8 describes inlining only for TurboFan compiles)');
    return this.done(result);
  }

  private done(result: V8RawSignals): V8RawSignals {
    if (this.notes.length) result.collection.limitation = this.notes.join('; ') + '.';
    return result;
  }

  private readTrace() {
    let text = '';
    try { text = fs.readFileSync(this.traceFile, 'utf8'); } catch { /* nothing traced */ }
    this.strayStdoutLines = strayDependencyTails(text);
    return parseTrace(text);
  }

  /** %GetOptimizationStatus of every live function at a position we care about, in one heap walk. */
  private async queryStatuses(scripts: ScriptTable, profileFunctions: V8FunctionRef[], trace: ReturnType<typeof parseTrace>): Promise<FunctionStatus[]> {
    const wanted: Record<string, number[]> = {};
    const want = (file: string, offset: number | undefined) => {
      if (offset === undefined) return;
      for (const id of scripts.idsOf(file)) (wanted[id] ??= []).push(offset);
    };
    for (const p of profileFunctions) for (const id of scripts.idsOf(p.file)) {
      const offset = scripts.offsetOf(id, p.line, p.column);
      if (offset !== undefined) (wanted[id] ??= []).push(offset);
    }
    for (const c of trace.compiles) {
      want(normalizeFile(c.outer.file), c.outer.start);
      for (const i of c.inlinees) want(normalizeFile(i.callee.file), i.callee.start);
    }
    // Functions the trace knows only by name (never sampled, e.g. a function under a breakpoint,
    // which V8's profiler charges to its caller): found by name in their scripts.
    const profiled = new Set(profileFunctions.map((p) => `${p.file}\n${p.name}`));
    const named: Record<string, string[]> = {};
    for (const fn of trace.functions.values()) {
      const file = normalizeFile(fn.file);
      if (!fn.name || !file || profiled.has(`${file}\n${fn.name}`)) continue;
      for (const id of scripts.idsOf(file)) (named[id] ??= []).push(fn.name);
    }
    if (Object.keys(wanted).length === 0 && Object.keys(named).length === 0) return [];
    const proto = await this.session.send<{ result: { objectId?: string } }>('Runtime.evaluate', { expression: 'Function.prototype', objectGroup: OBJECT_GROUP, silent: true });
    if (!proto.result.objectId) throw new Error('Function.prototype has no object id');
    const all = await this.session.send<{ objects: { objectId: string } }>('Runtime.queryObjects', { prototypeObjectId: proto.result.objectId, objectGroup: OBJECT_GROUP });
    const r = await this.session.send<{ result: { value?: Array<number | string> }; exceptionDetails?: { text?: string; exception?: { description?: string } } }>('Runtime.callFunctionOn', {
      objectId: all.objects.objectId, functionDeclaration: STATUS_QUERY_FUNCTION,
      arguments: [{ value: wanted }, { value: named }, { value: this.layout?.optimized ?? 0 }], returnByValue: true, silent: true,
    });
    if (r.exceptionDetails) throw new Error((r.exceptionDetails.exception?.description ?? r.exceptionDetails.text ?? 'exception').split('\n')[0]);
    const flat = r.result.value ?? [];
    const out: FunctionStatus[] = [];
    for (let i = 0; i + 4 < flat.length; i += 5) {
      const id = String(flat[i]);
      const [start, status, sourceLength, name] = [Number(flat[i + 1]), Number(flat[i + 2]), Number(flat[i + 3]), String(flat[i + 4])];
      const at = scripts.positionOf(id, start);
      const url = scripts.urlOf(id);
      if (!at || url === undefined) continue;
      out.push({ file: normalizeFile(url), line: at.line, column: at.column, status, tier: tierFromStatus(status, this.layout), sourceLength, ...(name ? { name } : {}) });
    }
    return out;
  }

  private build(trace: ReturnType<typeof parseTrace>, statuses: FunctionStatus[], profileFunctions: V8FunctionRef[], scripts: ScriptTable | undefined) {
    const disk = new DiskSources();
    return buildRawFunctions({
      trace, statuses, profileFunctions,
      refusals: (this.parent ?? this).inlining?.result() ?? [],
      position: (file, offset) => scripts?.positionInFile(normalizeFile(file), offset) ?? disk.positionAt(file, offset),
    });
  }

  /** Stops without results (cancellation, errors): flags off, trace file removed. */
  async abandon(): Promise<void> {
    this.outputSub?.dispose();
    if (this.active) await this.switchOff();
    if (this.traceFile) fs.rmSync(this.traceFile, { force: true });
    this.active = false;
  }
}

/** Functions of the profile that have a script, once each, with 1-based generated positions. */
function profileFunctionsOf(profile: RawCpuProfile | undefined): V8FunctionRef[] {
  const seen = new Map<string, V8FunctionRef>();
  for (const node of (profile?.nodes ?? []) as ProfileNodeLike[]) {
    const cf = node.callFrame;
    if (!cf?.url || cf.lineNumber === undefined || cf.lineNumber < 0) continue;
    const ref = { name: cf.functionName ?? '', file: normalizeFile(cf.url), line: cf.lineNumber + 1, column: (cf.columnNumber ?? 0) + 1 };
    seen.set(`${ref.file}\n${ref.line}\n${ref.column}`, ref);
  }
  return [...seen.values()];
}

/** Last resort when the target is gone: CommonJS offsets are offsets into the file on disk (v8-signals §2.2). */
class DiskSources {
  private readonly starts = new Map<string, { lines: Int32Array; length: number } | null>();

  positionAt(file: string, offset: number): { line: number; column: number } | undefined {
    const path = normalizeFile(file);
    if (!this.starts.has(path)) {
      try {
        // A path from the trace: a regular file of sane size only (a FIFO would hang this thread).
        const text = readBoundedFileSync(path, PROFILE_NAMED_FILE_MAX_BYTES).toString('utf8');
        this.starts.set(path, { lines: lineStarts(text), length: text.length });
      } catch { this.starts.set(path, null); }
    }
    const s = this.starts.get(path);
    return s && offset <= s.length ? positionAt(s.lines, offset) : undefined;
  }
}
