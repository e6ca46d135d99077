/**
 * Parser of V8's code-trace output as Hotpath collects it: `--trace-opt --trace-deopt
 * --trace-deopt-verbose --print-opt-source --trace-file-names`, redirected to a file with
 * `--redirect-code-traces-to` (v8-signals §3, §4, §5). Formats checked on Node 20, 22 and 24.
 *
 * The text is partly the app's own source code (print-opt-source prints each optimized function), so
 * everything here is data: lines inside a FUNCTION SOURCE block are skipped, nothing is evaluated.
 */

export interface TraceFunction {
  sfi: string;
  name: string;
  /** The script as V8 names it (a path for CommonJS, a URL for ES modules, `node:…` for core). */
  file: string;
  marked: number;
  /** `completed compiling` lines (Maglev and TurboFan, OSR included). */
  compiled: number;
  /** `completed optimizing` lines (TurboFan only); used when a V8 prints no `completed compiling`. */
  optimized: number;
  aborted: string[];
  /**
   * The state after the last event, for when the end-of-run status cannot be read (script mode
   * after exit): the tier of the last non-OSR optimized compile, or 'deoptimized' after a deopt.
   */
  last?: 'Maglev' | 'TurboFan' | 'deoptimized';
  /** The tier of its last on-stack-replacement compile (a long loop optimized while it ran). */
  lastOsr?: 'Maglev' | 'TurboFan';
}

export interface TraceDeopt {
  sfi: string;
  name: string;
  file: string;
  /** bailout kind (`deopt-eager`, `deopt-soft`, `deopt-lazy`), or `dependency` for dependent code thrown away. */
  kind: string;
  reason: string;
  /** `TURBOFAN`, `TURBOFAN_JS`, `MAGLEV`; '' for dependency events. */
  codeKind: string;
  /** Innermost first (the failed check), then each `inlined at` up to the optimized function. */
  frames: Array<{ file: string; line: number; column: number }>;
}

export interface SourceRecord {
  file: string;
  name: string;
  /** Script offset (UTF-16 units) of the function's start, V8's StartPosition. */
  start: number;
  /** Lines of the function's printed source: it ends on line startLine + lineSpan - 1. */
  lineSpan: number;
}

/** One TurboFan compile as `--print-opt-source` describes it: the function and what was inlined into it. */
export interface OptimizedCompile {
  optId: number;
  outer: SourceRecord;
  /** Inlined functions (source id → function) and the call sites they were inlined at. */
  inlinees: Array<{ callee: SourceRecord; callerSourceId: number; callSiteOffset: number; caller?: SourceRecord }>;
}

export interface ParsedTrace {
  functions: Map<string, TraceFunction>;
  deopts: TraceDeopt[];
  compiles: OptimizedCompile[];
}

/** Prefix of Hotpath's own probe functions (see targetScripts.ts); never reported. */
export const PROBE_NAME = '__hotpathV8Probe';

// `<JSFunction name <file> (sfi = 0x…)>`: the name may be empty or itself in <…> (e.g.
// <instance_members_initializer>); with --trace-file-names (always on here) the last <…> is the script.
const JS_FUNCTION_RE = /<JSFunction(.*?) \(sfi = (0x[0-9a-f]+)\)>/;

/** [whole, name, file, sfi] like a regex match, or null. */
function matchJsFunction(text: string): [string, string, string, string] | null {
  const m = JS_FUNCTION_RE.exec(text);
  if (!m) return null;
  let inner = m[1].trim();
  let file = '';
  if (inner.endsWith('>')) {
    const at = inner.lastIndexOf('<');
    file = inner.slice(at + 1, -1);
    inner = inner.slice(0, at).trim();
  }
  return [m[0], inner, file, m[2]];
}
const OPT_EVENT = /^\[(marking|compiling method|completed compiling|completed optimizing|aborted optimizing) 0x[0-9a-f]+ /;
const BAILOUT = /^\[bailout \(kind: ([\w-]+), reason: (.*?)\): begin\. deoptimizing 0x[0-9a-f]+ (<JSFunction.*?\(sfi = 0x[0-9a-f]+\)>), 0x[0-9a-f]+ <Code ([A-Z_]+)>/;
const DEOPT_AT = /;;; deoptimize at (.*)$/;
const POSITION = /<([^<>]*):(\d+):(\d+)>/g;
// V8 prints part of this line into the redirected file and the rest on stdout (seen on 20/22/24),
// so several fragments can share one line: match them anywhere.
const DEPENDENT = /\[marking dependent code 0x[0-9a-f]+ <Code ([A-Z_]+)> \((0x[0-9a-f]+) <SharedFunctionInfo ?([^>]*)>\)?(?: \(opt id \d+\) for deoptimization, reason: ([^\]]*)\])?/g;
const SOURCE_HEADER = /^--- FUNCTION SOURCE \((.*)\) id\{(\d+),(-?\d+)\} start\{(\d+)\} ---$/;
const SOURCE_END = '--- END ---';
const INLINE = /^INLINE \((.*)\) id\{(\d+),(-?\d+)\} AS (-?\d+) AT <(-?\d+):(\d+)>/;

/** Deopts that are on-stack-replacement bookkeeping, not failed assumptions (Node 24's Maglev → TurboFan OSR). */
export function isOsrReason(reason: string): boolean {
  return reason === 'prepare for on stack replacement (OSR)' || reason === "exit from OSR'd inner loop";
}

function splitScriptAndName(inner: string): { file: string; name: string } {
  // `(file:name)`: the file may contain ':' (node:path, file:///…), so split at the last one.
  const at = inner.lastIndexOf(':');
  return at < 0 ? { file: '', name: inner } : { file: inner.slice(0, at), name: inner.slice(at + 1) };
}

export class TraceParser {
  private readonly functions = new Map<string, TraceFunction>();
  private readonly deopts: TraceDeopt[] = [];
  private readonly compiles = new Map<number, OptimizedCompile>();
  private readonly sourcesByCompile = new Map<number, Map<number, SourceRecord>>();
  private pendingDeopt: TraceDeopt | undefined;
  /** Inside a FUNCTION SOURCE block: the record being measured. */
  private inSource: SourceRecord | undefined;
  private partial = '';

  /** Feed text as it arrives; lines are split here. */
  push(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  finish(): ParsedTrace {
    if (this.partial) { this.line(this.partial); this.partial = ''; }
    this.flushDeopt();
    const compiles = [...this.compiles.values()].filter((c) => !c.outer.name.startsWith(PROBE_NAME));
    return { functions: this.functions, deopts: this.deopts, compiles };
  }

  private fn(sfi: string, name: string, file: string): TraceFunction {
    let f = this.functions.get(sfi);
    if (!f) this.functions.set(sfi, (f = { sfi, name, file, marked: 0, compiled: 0, optimized: 0, aborted: [] }));
    if (!f.file && file) f.file = file;
    return f;
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (this.inSource) {
      if (line === SOURCE_END) this.inSource = undefined;
      else this.inSource.lineSpan++;
      return;
    }
    if (line.startsWith('--- FUNCTION SOURCE (')) return this.sourceHeader(line);
    if (line.startsWith('INLINE (')) return this.inline(line);
    if (line.startsWith('[bailout (')) return this.bailout(line);
    if (this.pendingDeopt) {
      const at = DEOPT_AT.exec(line);
      if (at) {
        this.pendingDeopt.frames = [...at[1].matchAll(POSITION)].map((m) => ({ file: m[1], line: Number(m[2]), column: Number(m[3]) }));
        return;
      }
      if (line.startsWith('[bailout end')) { this.flushDeopt(); return; }
      if (line.startsWith(' ')) return; // frame dumps of --trace-deopt-verbose
    }
    if (line.includes('[marking dependent code ')) this.dependent(line);
    const opt = OPT_EVENT.exec(line);
    if (opt) this.optEvent(opt[1], line);
  }

  private optEvent(event: string, line: string): void {
    const m = matchJsFunction(line);
    if (!m) return;
    const name = m[1];
    if (name.startsWith(PROBE_NAME)) return;
    const f = this.fn(m[3], name, m[2]);
    if (event === 'marking') f.marked++;
    else if (event === 'completed compiling') {
      f.compiled++;
      const target = /\(target ([A-Z_]+)\)( OSR)?/.exec(line);
      const tier = target?.[1] === 'MAGLEV' ? 'Maglev' : 'TurboFan';
      if (target && !target[2]) f.last = tier;
      else if (target) f.lastOsr = tier;
    }
    else if (event === 'completed optimizing') f.optimized++;
    else if (event === 'aborted optimizing') {
      const because = /because: (.*?)\]?$/.exec(line);
      const reason = because ? because[1] : 'unknown reason';
      if (!f.aborted.includes(reason)) f.aborted.push(reason);
    }
  }

  private bailout(line: string): void {
    this.flushDeopt();
    const m = BAILOUT.exec(line);
    if (!m) return;
    const fm = matchJsFunction(m[3]);
    if (!fm || fm[1].startsWith(PROBE_NAME)) return;
    const [, kind, reason, , codeKind] = m;
    const f = this.fn(fm[3], fm[1], fm[2]);
    if (!isOsrReason(reason)) f.last = 'deoptimized';
    this.pendingDeopt = { sfi: fm[3], name: fm[1], file: fm[2], kind, reason, codeKind, frames: [] };
  }

  private flushDeopt(): void {
    if (this.pendingDeopt) this.deopts.push(this.pendingDeopt);
    this.pendingDeopt = undefined;
  }

  private dependent(line: string): void {
    for (const m of line.matchAll(DEPENDENT)) {
      const [, codeKind, sfi, name, reason] = m;
      if (name.startsWith(PROBE_NAME)) continue;
      const known = this.functions.get(sfi);
      this.fn(sfi, name, known?.file ?? '').last = 'deoptimized';
      this.deopts.push({ sfi, name, file: known?.file ?? '', kind: 'dependency', reason: reason ?? '', codeKind, frames: [] });
    }
  }

  private sourceHeader(line: string): void {
    const m = SOURCE_HEADER.exec(line);
    if (!m) return;
    const optId = Number(m[2]);
    const sourceId = Number(m[3]);
    const record: SourceRecord = { ...splitScriptAndName(m[1]), start: Number(m[4]), lineSpan: 0 };
    this.inSource = record;
    let sources = this.sourcesByCompile.get(optId);
    if (!sources) this.sourcesByCompile.set(optId, (sources = new Map()));
    sources.set(sourceId, record);
    if (sourceId === -1) this.compiles.set(optId, { optId, outer: record, inlinees: [] });
  }

  private inline(line: string): void {
    const m = INLINE.exec(line);
    if (!m) return;
    const optId = Number(m[2]);
    const callee = this.sourcesByCompile.get(optId)?.get(Number(m[4]));
    const compile = this.compiles.get(optId);
    if (!callee || !compile) return;
    const callerSourceId = Number(m[5]);
    const caller = callerSourceId === -1 ? compile.outer : this.sourcesByCompile.get(optId)?.get(callerSourceId);
    compile.inlinees.push({ callee, callerSourceId, callSiteOffset: Number(m[6]), caller });
  }
}

/**
 * How many "[marking dependent code …" records in the trace file lack their end: V8 (11.3 to 14.x)
 * prints ") (opt id N) for deoptimization, reason: …]" with a bare PrintF, i.e. on the process's
 * stdout, whatever the code-trace redirect says. Each one is a line written into the app's output.
 */
export function strayDependencyTails(text: string): number {
  // Without its end the next trace follows on the same line: count records, not lines.
  let n = 0;
  for (const m of text.matchAll(DEPENDENT)) if (m[4] === undefined) n++;
  return n;
}

export function parseTrace(text: string): ParsedTrace {
  const p = new TraceParser();
  p.push(text);
  return p.finish();
}
