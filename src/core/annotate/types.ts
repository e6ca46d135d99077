import type { Placement } from '../attribution/types';
import type { Explanation, V8FunctionSignals } from '../v8/types';

/** A caller of a function and the share of that function's total time spent under it. */
export interface CallerShare {
  function: string;
  file: string;
  /** 1-based: the call site when known (`callSite` true), else the caller's declaration; null when unknown. */
  line: number | null;
  /** True when `line` is the line that makes the call. */
  callSite: boolean;
  /** Several lines in the caller could have made the call (the profile cannot tell which). */
  candidateLines?: number[];
  /** The callee ran inlined into this caller (no frame of its own). */
  inlined?: boolean;
  /** % of the callee's total time that ran under this caller. */
  sharePct: number;
}

/** A callee as a label and its share: `pbkdf2Sync (node:crypto)`, `cloneDeep (lodash)`. */
export interface CalleeShare {
  function: string;
  /** Where its time ran: `node:crypto`, `lodash`, `native`, '' for user code. */
  where: string;
  /** The callee's own position (for opening it), '' / null when it has none. */
  file: string;
  line: number | null;
  ms: number;
  pct: number;
  /** The line in the caller that makes the call, when known. */
  callLine?: number | null;
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
  /** Self time plus the non-user code (dependencies, Node, natives) it calls directly: what a change here can remove. */
  ownMs: number;
  ownPct: number;
  /** The biggest non-user parts of its own cost. */
  ownParts: CalleeShare[];
  /** Rank by own cost among all user functions of the profile (1 = most). */
  rank: number;
  callers: CallerShare[];
  /** Time V8 charged to this function on lines that could not be placed (inlined code), with why. */
  notPlaced?: { ms: number; pct: number; reasons: string[] };
  /** Calls whose line could not be told, with their time and the candidate lines. */
  unplacedCalls?: { function: string; ms: number; pct: number; candidateLines: number[] }[];
  /** Part of its self time that ran inlined into other functions (listed). */
  inlinedMs?: number;
  inlinedInto?: string[];
  /** V8's view of the function when signals were collected (tier, deopts, inlining). */
  v8?: V8FunctionSignals;
  /** The threads it ran in, when the profile covers several (`main`, `worker 1 (pool.js)`); program text. */
  threads?: string[];
}

export interface LineAnnotation {
  file: string;
  /** 1-based. */
  line: number;
  selfMs: number;
  selfPct: number;
  /** Everything with this line on the stack: self plus all calls made here. */
  totalMs: number;
  totalPct: number;
  /** Self plus the non-user code called here. */
  ownMs: number;
  ownPct: number;
  /** Samples whose top frame was on this line, estimated from its time and the mean sampling interval. */
  samples: number;
  /** The function whose code is on this line (for a line that only makes calls: the function it is in). */
  function: string;
  /** 'own', or the line's code ran inlined in `inlinedInto`'s frame ('inferred': from the source, V8 did not say). */
  placement: Placement;
  inlinedInto?: string;
  /** Calls made on this line, heaviest first. */
  calls: CalleeShare[];
  /** Top callers of `function`. */
  callers: CallerShare[];
  /** The threads its code ran in, when the profile covers several; program text. */
  threads?: string[];
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
  /** `functions`: a function-level profile (most pprof producers, 0x): CodeLens per function, no line heat. */
  granularity?: 'functions';
  /** A profile of several threads (main and workers): their labels; every share is then of all their time together. */
  threads?: string[];
}
