/**
 * Public shapes of the profile model. Times are microseconds (µs) everywhere inside the model; the
 * ranked outputs (hotspots, lines) convert to milliseconds for people. Lines and columns we output are
 * 1-based; only the raw callFrame fields of a .cpuprofile are 0-based.
 */
import type { Warning } from '../common/warnings';
import type { LabelFilter } from '../pprof/labels';
import type { ProfileOrigin } from './origin';
import type { PathMapOptions } from './pathMap';

/** Where a function's code comes from; decides what we rank and how we explain it. */
export type Category =
  | 'user' // the app's own code (file:// or an absolute path outside node_modules)
  | 'dependency' // code under node_modules
  | 'node' // Node's own JS (node:..., internal/...)
  | 'native' // V8 builtins and other code without a script
  | 'gc' // (garbage collector)
  | 'idle' // (idle)
  | 'program' // (program): native code outside JS, e.g. the event loop or the parser
  | 'root'; // (root): the tree's root, never a hotspot

export interface ModelOptions {
  /** Map positions through source maps (default true; only `loadProfile`/`applySourceMaps` do IO). */
  sourceMaps?: boolean;
  /**
   * The sourceMapURL V8 itself reported per script URL (Debugger.scriptParsed), for code compiled in
   * memory (tsx, ts-node, bundlers' dev servers) whose file on disk carries no map. Tried first.
   * `loadProfile` reads them from the `<profile>.sourcemaps.json` sidecar when not given.
   */
  sourceMapUrls?: Record<string, string>;
  /** File reader for scripts and source maps; defaults to node:fs/promises. Tests pass a fake. */
  fs?: FileReader;
  /**
   * A label for the thread this profile belongs to (e.g. "main", "worker 1"). Defaults to the thread id
   * in a `--cpu-prof` file name (`CPU.<date>.<time>.<pid>.<threadId>.<seq>.cpuprofile`).
   */
  thread?: string;
  /** Names the profile in error messages when the input is not a file (buildProfileModel). */
  sourceName?: string;
  /** Stops reading the profile and its source maps (loadProfile); it then rejects with a Cancelled error. */
  token?: import('../common/cancellation').CancellationToken;
  /** pprof: the sample type to show (`cpu`, `wall`, `alloc_space`…); default CPU, else wall. */
  sampleType?: string;
  /** pprof: keep only samples with these labels. */
  labels?: LabelFilter[];
  /** pprof and 0x: map another machine's paths to the workspace (default: the current directory as the root). */
  pathMap?: PathMapOptions;
}

export interface FileReader {
  readFile(path: string): Promise<string>;
  /**
   * Whether a source a map points at is on disk (original sources of a package are often not installed).
   * Readers without it (test fakes) treat every source as present.
   */
  exists?(path: string): Promise<boolean>;
}

/** One function: all call-tree nodes with the same (functionName, url, lineNumber, columnNumber). */
export interface FunctionInfo {
  /** callFrame.functionName; '' for anonymous functions (outputs show "(anonymous)"). */
  name: string;
  url: string;
  scriptId: string;
  /** Absolute path for file:// urls and paths; the url otherwise ('' for natives). */
  file: string;
  /** 1-based declaration line/column in `file` (the parameter list's `(`); null when unknown. */
  line: number | null;
  column: number | null;
  category: Category;
  /** npm package name (incl. @scope/) for `dependency`, else null. */
  package: string | null;
  /** V8's "optimization disabled" reason, when the profile carries one (v8-signals §1.5). */
  deoptReason?: string;
  /** Original position through a source map (or js-debug's annotations), 1-based. */
  originalFile?: string;
  originalLine?: number;
  originalColumn?: number;
  /**
   * Where a source map placed the function when that file is not on disk (e.g. a package's `src/` that
   * is not installed): shown as secondary; the position used is then the installed script's.
   */
  unavailableSource?: { file: string; line: number; column: number };
}

/**
 * The call tree as parallel typed arrays indexed by node index (0..nodeCount-1, in file order). Compact
 * and transferable, so a webview can receive it without a copy of the raw profile.
 */
export interface NodeArrays {
  /** The node's id in the .cpuprofile. */
  id: Int32Array;
  /** Parent node index; -1 for the root. */
  parent: Int32Array;
  /** Index into `ProfileModel.functions`. */
  func: Int32Array;
  selfUs: Float64Array;
  totalUs: Float64Array;
  hitCount: Int32Array;
  /** Depth below the root (root = 0). */
  depth: Int32Array;
  /** Children of node i are `childIndex[childOffsets[i] .. childOffsets[i+1])`. */
  childOffsets: Int32Array;
  childIndex: Int32Array;
  /** Node indices in depth-first pre-order (parents before children). */
  preorder: Int32Array;
  /**
   * The 1-based line in the parent's function (its script's coordinates) that made this call, when the
   * profile records it (pprof with caller lines); 0 when unknown. A .cpuprofile has none.
   */
  callLine?: Int32Array;
}

/**
 * Per-line self time: one entry per (function, line, inlined?) — line time from positionTicks, keyed by
 * the function's own script. Parallel arrays indexed 0..count-1.
 */
export interface LineTable {
  count: number;
  func: Int32Array;
  /** 1-based line in the function's script (generated code when a source map applies). */
  line: Int32Array;
  selfUs: Float64Array;
  /** 1 when the line lies before the function's declaration: ticks of an inlined callee (v8-signals §1.6.1). */
  maybeInlined: Uint8Array;
  /** Original file per entry after source mapping; undefined when unmapped. */
  originalFile: (string | undefined)[];
  /** Original 1-based line per entry; 0 when unmapped. */
  originalLine: Int32Array;
  /**
   * Per call-tree node, its line ticks as records `nodeStart[v] .. nodeStart[v+1]`: the entry each went
   * to (`nodeEntry`) and its share of the node's self time (`nodeUs`, µs).
   */
  nodeStart: Int32Array;
  nodeEntry: Int32Array;
  nodeUs: Float64Array;
}

export interface SourceMapStats {
  /** Whether mapping ran (sourceMaps !== false and applySourceMaps was called). */
  applied: boolean;
  /** Scripts whose source map was loaded and used. */
  scriptsMapped: number;
  functionsMapped: number;
  linesMapped: number;
  /** Line entries whose generated line spans too many source lines to place (see LINES_NOT_MAPPABLE). */
  linesAmbiguous?: number;
  /** The same, per script url. */
  ambiguousByUrl?: Record<string, number>;
  /** Scripts that declared a source map we could not use, and why. */
  failures: { url: string; reason: string }[];
}

export interface ProfileModel {
  /** The file the profile came from, or the sourceName given to buildProfileModel. */
  source: string;
  thread?: string;
  /** Profile clock, µs (CDP's monotonic clock, not wall time). */
  startTime: number;
  endTime: number;
  /** Sum of all sample durations, µs: the 100% of every percentage. */
  durationUs: number;
  sampleCount: number;
  idleUs: number;
  gcUs: number;
  programUs: number;
  nodeCount: number;
  rootIndex: number;
  nodes: NodeArrays;
  functions: FunctionInfo[];
  functionSelfUs: Float64Array;
  /** Total time per function, recursion counted once (a subtree counts only under its outermost frame). */
  functionTotalUs: Float64Array;
  lines: LineTable;
  /** Node index of each sample, in time order. */
  samples: Int32Array;
  /** µs from the previous sample (the first from startTime); as in the file. */
  timeDeltas: Int32Array | Float64Array;
  /** Workspace root recorded by VS Code's JavaScript debugger, if any. */
  rootPath?: string;
  sourceMaps: SourceMapStats;
  warnings: Warning[];
  /** @internal js-debug's precomputed locations, used by applySourceMaps as a fallback. */
  jsDebug?: JsDebugLocations;
  /** Set when the profile was not a .cpuprofile (pprof, 0x): its producer, unit, granularity, labels, paths. */
  origin?: ProfileOrigin;
}

/** @internal Location lookup built from a js-debug `$vscode.locations` annotation. */
export interface JsDebugLocations {
  /** Key: `${url}\n${lineNumber}\n${columnNumber}` (0-based, as in callFrame) → original position. */
  byPosition: Map<string, { file: string; line: number; column: number }>;
}

export interface UserCaller {
  function: string;
  file: string;
  line: number | null;
}

export interface Hotspot {
  rank: number;
  function: string;
  file: string;
  line: number | null;
  column: number | null;
  selfMs: number;
  selfPct: number;
  totalMs: number;
  totalPct: number;
  category: Category;
  package: string | null;
  /** For non-user hotspots: the user function most of this hotspot's self time runs under; else null. */
  userCaller: UserCaller | null;
}

export interface HotLine {
  file: string;
  line: number;
  selfMs: number;
  selfPct: number;
  /** The function with the most time on this line. */
  function: string;
  maybeInlined: boolean;
  /**
   * For a maybeInlined line: the function of the same script that most likely contains the line (the
   * nearest one declared above it), i.e. the inlined callee; `function` is then the caller it ran in.
   */
  inlinedFunction?: string;
}

export interface RankOptions {
  /** Maximum rows (default 20). */
  limit?: number;
}
