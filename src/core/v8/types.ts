/**
 * V8's view of the profiled code: the tier each function ran in, its (de)optimizations and inlining.
 * The first block is the contract the front ends consume (VS Code CodeLens/hover, CLI JSON, flamegraph);
 * the second is what a run collects, saved beside the profile as `<profile>.v8.json` and joined to the
 * profile's functions at analysis time (see join.ts). Plain data: it survives JSON.stringify/parse.
 */

/** The execution tier of a function. Maglev exists only where V8 was built with it (Node 24). */
export type V8Tier = 'Ignition' | 'Sparkplug' | 'Maglev' | 'TurboFan' | 'unknown';

/** A paragraph in a Node developer's terms: what V8 did, why it hurts, the usual fix. */
export interface Explanation {
  title: string;
  text: string;
  fix: string;
}

export interface V8Deopt {
  /** `deopt-eager`, `deopt-soft`, `deopt-lazy` (V8's bailout kind) or `dependency` (code thrown away because an assumption it relied on changed). */
  kind: string;
  /** V8's reason string, e.g. `wrong map`, `not a Smi`. */
  reason: string;
  /** Where the failed check is (the innermost frame, possibly inside an inlined callee); original position through source maps. 1-based; '' / 0 when V8 did not say. */
  file: string;
  line: number;
  column: number;
  /** How many times this deopt (same kind, reason and position) happened during the run. */
  count: number;
  /** On-stack-replacement bookkeeping (Maglev → TurboFan OSR on Node 24), not a failed assumption: noise. */
  osr: boolean;
  /** When the check that failed sits in a callee inlined here: that callee, as `name (file:line)`. */
  inlinedFrom?: string;
  /**
   * When this function's code was inlined into another optimized function and that code deoptimized:
   * that function, as `name (file:line)` (the deopt is also listed there, as its own).
   */
  inlinedInto?: string;
  explanation?: Explanation;
}

/** Why a hot function ended the run unoptimized (see explain.ts). */
export type NotOptimizedCause = 'disabled' | 'breakpoint' | 'aborted' | 'too-large' | 'deoptimized' | 'never-marked';

export interface V8FunctionSignals {
  /** The tier the function was in when the run ended (the tier its hot code ran in). */
  tier: V8Tier;
  /** Completed optimizing compiles (Maglev or TurboFan, OSR included) seen during the run. */
  optimizations: number;
  /** Deopts of this function's own optimized code, grouped by kind, reason and position; OSR noise last. */
  deopts: V8Deopt[];
  /** Optimized functions this one was inlined into, as `name (file:line)`. */
  inlinedInto: string[];
  /** Functions inlined into this one's optimized code, as `name (file:line)`. */
  inlined: string[];
  /** Why V8 did not inline this function where it was called (TurboFan's own words, or direct recursion). */
  notInlined?: { reason: string; explanation?: Explanation };
  /** Set when the function ended the run unoptimized (Ignition/Sparkplug) although it was hot. */
  notOptimized?: { reason: string; explanation?: Explanation; cause?: NotOptimizedCause };
  /**
   * Set when the function's code ran as part of another function's optimized code, V8 having inlined it
   * there: it had no code of its own at the end of the run, or the profile has no frame of it (every
   * sample of it ran inlined). That function, as `name (file:line)`; `tier` is then that function's tier.
   */
  ranInlinedIn?: string;
  /** With `ranInlinedIn`, when it still had code of its own: that copy's tier at the end of the run (the profile never sampled it). */
  ownTier?: V8Tier;
  /** With `ranInlinedIn`: the code it ran in was that function's on-stack-replacement code (a loop optimized while it ran). */
  ranInlinedOsr?: boolean;
  /** With `ranInlinedIn`, when the profile also has frames of the function: the part of its time that ran inlined (over half). */
  ranInlinedShare?: number;
  /** Set when `tier` is `unknown`: why V8 could not say (`short` fits a CodeLens, `reason` is a sentence). */
  tierUnknown?: { cause: TierUnknownCause; short: string; reason: string };
}

/**
 * Why a function's tier is unknown: `gone` — the function no longer existed when V8 was asked at the end
 * of the run (code created per request, collected closures); `no-code` — V8 held no compiled code for it;
 * `not-read` — the end-of-run query failed or the process had exited; `layout` — this V8's status bits
 * are not known to Hotpath.
 */
export type TierUnknownCause = 'gone' | 'no-code' | 'not-read' | 'layout';

export interface V8Collection {
  /** False when nothing could be collected; `limitation` says why. */
  collected: boolean;
  nodeVersion: string;
  /** What could not be collected in this run and exactly why (e.g. attach-only gaps); absent when nothing is missing. */
  limitation?: string;
  /** Tiers this V8 build has (Maglev only where compiled in). */
  tiers?: V8Tier[];
  /** Run-wide findings, e.g. a built-in prototype was modified so V8 left its fast paths. */
  findings?: V8Finding[];
}

/** Something about the whole run, with a stable id (e.g. `V8_PROTECTOR_NO_ELEMENTS`). */
export interface V8Finding extends Explanation { id: string }

// ---------------------------------------------------------------------------------------------------
// What a run collects (`<profile>.v8.json`). Positions are V8's: generated code, 1-based, before source maps.

export const V8_SIGNALS_VERSION = 1;

/** A function as V8 names it: script (path or URL as V8 prints it) and the position of its `(`. */
export interface V8FunctionRef {
  name: string;
  file: string;
  /** 1-based; 0 when unknown. */
  line: number;
  column: number;
}

export interface RawDeopt {
  kind: string;
  reason: string;
  /** Frames from the failed check outwards: [0] is where the check is, the last one lies in the deoptimized function. */
  frames: Array<{ file: string; line: number; column: number }>;
  osr: boolean;
  count: number;
  /** Set on the copy kept for a function whose code was inlined into the optimized function that deoptimized. */
  inlinedIn?: V8FunctionRef;
}

export interface RawV8Function extends V8FunctionRef {
  /** Last line of the function, when V8 printed its source (TurboFan compiles). */
  endLine?: number;
  /** From %GetOptimizationStatus at the end of the run; absent when the function object was not found. */
  tier?: V8Tier;
  status?: number;
  /** Source length (UTF-16 units) of a function that was not optimized at the end: to tell a too-large one. */
  sourceLength?: number;
  /** The state after its last traced event, for when no end-of-run status could be read (script mode). */
  lastTraced?: 'Maglev' | 'TurboFan' | 'deoptimized';
  /** The tier of its last on-stack-replacement compile: the code a long loop of it ran in, whatever the function's own tier. */
  osrTier?: 'Maglev' | 'TurboFan';
  optimizations: number;
  /** How often V8 marked it for optimization; marked again and again without a compile means V8 refuses to compile it. */
  marked: number;
  /** `[aborted optimizing … because: …]` reasons. */
  aborted: string[];
  deopts: RawDeopt[];
  inlined: V8FunctionRef[];
  inlinedInto: V8FunctionRef[];
  /**
   * Where each inlined call sits (V8 generated positions, 1-based): in this function or, for nested
   * inlining, in the inlinee that made the call (`caller`). From TurboFan's `INLINE … AT <source:offset>`.
   */
  inlineSites?: Array<{ callee: V8FunctionRef; caller: V8FunctionRef; line: number; column: number }>;
  /** TurboFan's refusal to inline this function (`Cannot consider … (reason: N)`), readable. */
  notInlinable?: string;
}

export interface V8RawSignals {
  version: typeof V8_SIGNALS_VERSION;
  collection: V8Collection;
  /** How the run was made, for the limitation texts and the checks. */
  mode: 'launch' | 'attach' | 'script';
  functions: RawV8Function[];
  /** Set when the process cannot optimize at all: the flags that switch the optimizer off (e.g. `--jitless`), or a description. */
  optimizerDisabled?: string;
  /**
   * How the end-of-run tier query went (absent in signals saved by older versions): `ok`, `unknown-layout`
   * (statuses read, bits not decodable), `failed`, `process-exited`.
   */
  tiersRead?: 'ok' | 'unknown-layout' | 'failed' | 'process-exited';
  /** Facts about the target read at the end of the run (for the production-parity checks). */
  target?: { execArgv: string[]; nodeOptions: string | null; sourceMapsEnabled: boolean | null; nodeEnv: string | null };
}
