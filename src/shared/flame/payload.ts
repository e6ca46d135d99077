/**
 * What the flamegraph front end receives: the merged frame tree, the function table, an optional
 * time-ordered run list for the flame chart and optional before-values for a differential view. Never
 * the raw profile. Typed arrays throughout, so it travels as structured-clone data (VS Code webview
 * postMessage) or, in the standalone report, as one JSON header plus one binary blob (see encode/decode).
 */

export const FLAME_PAYLOAD_VERSION = 1;

export interface FlameProfileMeta {
  /** A short title, e.g. the profile's file name. Profile-controlled text: render as text only. */
  title: string;
  /** Where the profile came from (a path), or ''. */
  source: string;
  thread?: string;
  /** Sum of all sample durations, µs: the 100% of every percentage. */
  durationUs: number;
  sampleCount: number;
  /** Call-tree nodes in the raw profile (for the record; the payload carries merged frames). */
  nodeCount: number;
  warnings: string[];
  /**
   * What the widths measure: time (µs, the default) or bytes (an allocation profile: each "sample" is
   * an allocation, `durationUs` the total bytes, the flame chart's axis allocation order).
   */
  unit?: 'us' | 'bytes' | 'objects';
  /** Requests of the measured load, when known: amounts are also shown per request. */
  requests?: number;
  /** Bands drawn above the flame chart on its time axis (e.g. blocking episodes of the event loop). */
  lanes?: FlameLane[];
}

/** A band of intervals over the flame chart's time axis, each with a label (profile-controlled text). */
export interface FlameLane {
  title: string;
  /** [start, end] pairs, µs from the timeline's start. */
  spans: number[];
  labels: string[];
}

/** Functions as parallel arrays; strings are indices into FlamePayload.strings (-1 = none). */
export interface FunctionTable {
  count: number;
  name: Int32Array;
  /** Display file: the original (source-mapped) file when known, else the script's path or url. */
  file: Int32Array;
  /** 1-based display line; 0 when unknown. */
  line: Int32Array;
  /** 1-based display column; 0 when unknown. */
  column: Int32Array;
  /** CategoryCode. */
  category: Uint8Array;
  /** npm package for dependencies. */
  pkg: Int32Array;
  /** 1 when line/file are original positions through a source map. */
  mapped: Uint8Array;
  /**
   * Further per-function values by name, for colour modes added later (the V8-signals issue adds
   * `tier`: the function's optimisation tier code). Travel through encode/decode as they are.
   * `inlined`: 1 or 2 for an inlined twin (V8 reported the inlining / inferred from the source), else 0.
   */
  extras?: Record<string, Uint8Array>;
  /**
   * Inlined twins (core/flame/inlined.ts): per function, the function it is an inlined frame of, or -1.
   * A twin's frames hold the ticks V8 charged to their parent frame's function but attribution placed in
   * the callee's code; every view counts a twin as the function it is a twin of. Absent: no twins.
   */
  inlinedOf?: Int32Array;
}

/** Frames in left-heavy pre-order; frame 0 is the root. */
export interface PayloadFrames {
  parent: Int32Array;
  func: Int32Array;
  selfUs: Float64Array;
}

/**
 * The flame chart's data: the profile as runs of consecutive samples in the same frame. Run i covers
 * [startUs[i], startUs[i+1]) (the last one until endUs), µs from the first sample.
 */
export interface FlameTimeline {
  frame: Int32Array;
  startUs: Float64Array;
  endUs: number;
  /** True when runs shorter than resolutionUs were resampled away to bound the size. */
  resampled: boolean;
  resolutionUs: number;
}

/** What one side of a comparison ran, for the differential flamegraph's header. Text for display only. */
export interface DiffSide {
  label: string;
  nodeVersion?: string | null;
  gitRev?: string | null;
  /** The variables and node flags that set this side apart. */
  env?: Record<string, string>;
  nodeArgs?: string[];
  /** When the diff covers every thread (a side ran worker threads): this side's threads (`main`, `worker 1 (pool.js)` …). */
  threads?: string[];
}

/** A differential payload: `frames` are the newer profile's; this is the older one's matching time. */
export interface FlameDiff {
  before: FlameProfileMeta;
  /** Per frame of the newer profile: self time of the same call path in the older profile, µs. */
  beforeSelfUs: Float64Array;
  /** Both sides of a `hotpath compare` (before = a, after = b), when known. */
  sides?: { before: DiffSide; after: DiffSide };
}

export interface FlamePayload {
  version: typeof FLAME_PAYLOAD_VERSION;
  meta: FlameProfileMeta;
  strings: string[];
  functions: FunctionTable;
  frames: PayloadFrames;
  timeline?: FlameTimeline;
  diff?: FlameDiff;
}

type ArrayKind = 'i32' | 'f64' | 'f32' | 'u8';
interface Section { path: string; kind: ArrayKind; offset: number; length: number }
type TypedArray = Int32Array | Float64Array | Float32Array | Uint8Array;

/** The JSON half of an encoded payload. Everything but the typed arrays. */
export interface EncodedHeader {
  version: number;
  meta: FlameProfileMeta;
  strings: string[];
  functionCount: number;
  timeline?: { endUs: number; resampled: boolean; resolutionUs: number };
  diff?: { before: FlameProfileMeta; sides?: FlameDiff['sides'] };
  sections: Section[];
  byteLength: number;
}

function sectionsOf(p: FlamePayload, exactTimeline: boolean): [string, TypedArray][] {
  const s: [string, TypedArray][] = [
    ['functions.name', p.functions.name], ['functions.file', p.functions.file], ['functions.line', p.functions.line],
    ['functions.column', p.functions.column], ['functions.pkg', p.functions.pkg], ['functions.category', p.functions.category],
    ['functions.mapped', p.functions.mapped],
    ...(p.functions.inlinedOf ? [['functions.inlinedOf', p.functions.inlinedOf] as [string, TypedArray]] : []),
    ...Object.entries(p.functions.extras ?? {}).map(([name, a]): [string, TypedArray] => [`functions.extras.${name}`, a]),
    ['frames.parent', p.frames.parent], ['frames.func', p.frames.func], ['frames.selfUs', p.frames.selfUs],
  ];
  // In a report, run starts travel as float32 durations (a third smaller; exact to 2 µs below 16 s per
  // run). Chunked host messages keep them exact, so a chunked payload is the payload itself.
  if (p.timeline) s.push(['timeline.frame', p.timeline.frame], exactTimeline ? ['timeline.startUs', p.timeline.startUs] : ['timeline.durationUs', durationsOf(p.timeline)]);
  if (p.diff) s.push(['diff.beforeSelfUs', p.diff.beforeSelfUs]);
  return s;
}

const kindOf = (a: TypedArray): ArrayKind => (a instanceof Float64Array ? 'f64' : a instanceof Float32Array ? 'f32' : a instanceof Int32Array ? 'i32' : 'u8');

function durationsOf(t: FlameTimeline): Float32Array {
  const n = t.startUs.length;
  const d = new Float32Array(n);
  for (let i = 0; i < n; i++) d[i] = (i + 1 < n ? t.startUs[i + 1] : t.endUs) - t.startUs[i];
  return d;
}

function startsOf(durations: Float32Array): Float64Array {
  const s = new Float64Array(durations.length);
  let t = 0;
  for (let i = 0; i < durations.length; i++) {
    s[i] = t;
    t += durations[i];
  }
  return s;
}

export interface EncodeOptions {
  /** Keep the flame chart's run starts as float64 (default: float32 durations, for reports). */
  exactTimeline?: boolean;
}

/** Split a payload into a JSON-able header and one binary blob (sections 8-byte aligned). */
export function encodePayload(p: FlamePayload, options: EncodeOptions = {}): { header: EncodedHeader; binary: Uint8Array } {
  const parts = sectionsOf(p, options.exactTimeline === true);
  const sections: Section[] = [];
  let offset = 0;
  for (const [path, array] of parts) {
    sections.push({ path, kind: kindOf(array), offset, length: array.length });
    offset += Math.ceil(array.byteLength / 8) * 8;
  }
  const binary = new Uint8Array(offset);
  parts.forEach(([, array], i) => binary.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), sections[i].offset));
  const header: EncodedHeader = {
    version: p.version,
    meta: p.meta,
    strings: p.strings,
    functionCount: p.functions.count,
    timeline: p.timeline && { endUs: p.timeline.endUs, resampled: p.timeline.resampled, resolutionUs: p.timeline.resolutionUs },
    diff: p.diff && { before: p.diff.before, ...(p.diff.sides ? { sides: p.diff.sides } : {}) },
    sections,
    byteLength: offset,
  };
  return { header, binary };
}

/** The inverse of encodePayload. `binary` must start at an 8-byte aligned offset of its buffer. */
export function decodePayload(header: EncodedHeader, binary: Uint8Array): FlamePayload {
  if (header.version !== FLAME_PAYLOAD_VERSION) throw new Error(`Unsupported flamegraph data version ${header.version}`);
  if (binary.byteLength < header.byteLength) throw new Error('Flamegraph data is truncated');
  if (binary.byteOffset % 8 !== 0) binary = binary.slice();
  const get = new Map<string, TypedArray>();
  for (const s of header.sections) {
    const at = binary.byteOffset + s.offset;
    const array = s.kind === 'f64' ? new Float64Array(binary.buffer, at, s.length)
      : s.kind === 'f32' ? new Float32Array(binary.buffer, at, s.length)
      : s.kind === 'i32' ? new Int32Array(binary.buffer, at, s.length) : new Uint8Array(binary.buffer, at, s.length);
    get.set(s.path, array);
  }
  const need = <T extends TypedArray>(path: string): T => {
    const a = get.get(path);
    if (!a) throw new Error(`Flamegraph data lacks ${path}`);
    return a as T;
  };
  const payload: FlamePayload = {
    version: FLAME_PAYLOAD_VERSION,
    meta: header.meta,
    strings: header.strings,
    functions: {
      count: header.functionCount,
      name: need('functions.name'), file: need('functions.file'), line: need('functions.line'), column: need('functions.column'),
      pkg: need('functions.pkg'), category: need('functions.category'), mapped: need('functions.mapped'),
    },
    frames: { parent: need('frames.parent'), func: need('frames.func'), selfUs: need('frames.selfUs') },
  };
  const inlinedOf = get.get('functions.inlinedOf');
  if (inlinedOf instanceof Int32Array && inlinedOf.length === header.functionCount) payload.functions.inlinedOf = inlinedOf;
  for (const [path, array] of get) {
    if (path.startsWith('functions.extras.')) (payload.functions.extras ??= {})[path.slice('functions.extras.'.length)] = array as Uint8Array;
  }
  if (header.timeline) {
    const exact = get.get('timeline.startUs') as Float64Array | undefined;
    payload.timeline = { ...header.timeline, frame: need('timeline.frame'), startUs: exact ?? startsOf(need('timeline.durationUs')) };
  }
  if (header.diff) payload.diff = { before: header.diff.before, beforeSelfUs: need('diff.beforeSelfUs'), ...(header.diff.sides ? { sides: header.diff.sides } : {}) };
  return payload;
}
