import type { Explanation, V8FunctionSignals } from '../v8/types';

/** A caller of a function and the share of that function's total time spent under it. */
export interface CallerShare {
  function: string;
  file: string;
  /** 1-based; null when unknown. */
  line: number | null;
  /** % of the callee's total time that ran under this caller. */
  sharePct: number;
}

export interface FunctionAnnotation {
  function: string;
  file: string;
  /** 1-based declaration line (V8 reports the parameter list's line). */
  line: number;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
  /** Rank by self time among all functions of the profile (1 = hottest). */
  rank: number;
  callers: CallerShare[];
  /** V8's view of the function when signals were collected (tier, deopts, inlining). */
  v8?: V8FunctionSignals;
}

export interface LineAnnotation {
  file: string;
  /** 1-based. */
  line: number;
  selfMs: number;
  selfPct: number;
  /** Samples whose top frame was on this line, estimated from its time and the mean sampling interval. */
  samples: number;
  /** The function with the most time on this line. */
  function: string;
  /** Time that V8 charged to `function` but that belongs to an inlined callee (see HotLine.maybeInlined). */
  maybeInlined: boolean;
  inlinedFunction?: string;
  /** Top callers of `function`. */
  callers: CallerShare[];
}

/** A place where V8 threw away a hot function's optimized code (a failed speculation), for its own decoration. */
export interface DeoptAnnotation {
  file: string;
  /** 1-based. */
  line: number;
  column: number;
  /** The hot function whose optimized code was thrown away. */
  function: string;
  kind: string;
  reason: string;
  count: number;
  /** The inlined callee the failed check sits in, when not the function itself. */
  inlinedFrom?: string;
  explanation?: Explanation;
}

export interface FileAnnotations {
  file: string;
  functions: FunctionAnnotation[];
  lines: LineAnnotation[];
  deopts: DeoptAnnotation[];
}

export interface Annotations {
  /** The profile these come from (shown in hovers). */
  profilePath: string;
  durationMs: number;
  sampleCount: number;
  /** Display file path → its annotations. */
  files: Map<string, FileAnnotations>;
}
