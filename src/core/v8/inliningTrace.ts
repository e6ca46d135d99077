/**
 * TurboFan's inlining decisions from `--trace-turbo-inlining` (v8-signals §4). V8 prints them with
 * PrintF on the process's stdout — `--redirect-code-traces-to` does not catch them — so they are read
 * only where Hotpath owns the target's stdout (launch and script mode), never when attaching (they
 * would land in the app's own logs). Only the refusals are kept: what was inlined comes, with
 * positions, from `--print-opt-source` (traceParser.ts).
 */

export interface InliningRefusal {
  /** SharedFunctionInfo address, to join with the SFIs of `--trace-opt` lines. */
  sfi: string;
  name: string;
  reason: string;
}

/**
 * `SharedFunctionInfo::Inlineability`, printed as a number by "Cannot consider … (reason: N)"; the
 * order was the same in V8 11.3, 12.4 and 13.6 (the over-limit function gave 5 on each).
 */
const INLINEABILITY: Record<number, string> = {
  0: 'it has no script (e.g. an API callback)',
  1: 'it needs binary code coverage (coverage collection is on)',
  2: 'it is a built-in',
  3: 'V8 does not count it as user JavaScript (e.g. V8 extension code)',
  4: 'it has no bytecode yet',
  5: 'its bytecode exceeds the inlining limit (--max-inlined-bytecode-size, 460 bytes)',
  6: 'it may contain break points (a debugger has it under a breakpoint)',
  7: 'V8 disabled optimization for it',
};

export function inlineabilityReason(code: number): string {
  return INLINEABILITY[code] ?? `V8 inlineability code ${code}`;
}

const CANNOT = /^Cannot consider 0x[0-9a-f]+ \{(0x[0-9a-f]+) <SharedFunctionInfo ?(.*?)>\} for inlining \(reason: (\d+)\)/;

// Every line shape --trace-turbo-inlining prints (V8 11.3–14.6; 'Inlinee contains …' when inlining into try/catch), and the half of --trace-deopt's
// "marking dependent code" line that V8 prints on stdout instead of the redirected file, so they can
// be kept out of the app's output shown in error messages.
const TRACE_LINE = /^(Considering 0x[0-9a-f]+ \{|Inlining small function\(s\) at call site #|Inlining 0x[0-9a-f]+ \{|Cannot consider 0x[0-9a-f]+ \{|Not considering call site #|Not inlining |Try(ing)? inlining |\d+ candidate\(s\) for inlining:|- candidate: |\s+- target: |\) \(opt id \d+\) for deoptimization, reason: |\s*Inlinee contains \d+ calls without local exception handler)/;

/** A line V8 printed on the app's stdout because Hotpath turned its tracing on (not the app's output). */
export function isV8TraceLine(line: string): boolean {
  return TRACE_LINE.test(line);
}

/** Collects refusals from chunks of stdout (lines may be split across chunks). */
export class InliningTraceReader {
  private partial = '';
  private readonly refusals = new Map<string, InliningRefusal>();

  push(chunk: string): void {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop() ?? '';
    // Bounded: a process printing one endless line must not grow this buffer forever.
    if (this.partial.length > 10_000) this.partial = '';
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    const m = CANNOT.exec(line);
    if (!m) return;
    if (this.refusals.size >= 10_000) return;
    this.refusals.set(m[1], { sfi: m[1], name: m[2], reason: inlineabilityReason(Number(m[3])) });
  }

  result(): InliningRefusal[] {
    if (this.partial) { this.line(this.partial); this.partial = ''; }
    return [...this.refusals.values()];
  }
}
