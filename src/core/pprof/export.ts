/**
 * The profile model → pprof (gzipped protobuf, written with pprof-format), for `go tool pprof`, Pyroscope's
 * ingest, speedscope, and Hotpath itself. Faithful to what the model knows:
 * - values: `samples/count` and `cpu/nanoseconds` (a heap model: its byte or object type). Time is the
 *   real sample durations (timeDeltas), not samples × a nominal interval. `(idle)` is left out: the export's
 *   total is the profile's sampled time without idle (said in a comment and by `idleExcludedMs`);
 * - leaf frames: one location per (function, line) from V8's line ticks, each node's self time split as
 *   the model split it; a leaf without line ticks (natives, a function-level profile) sits on the function's
 *   start line;
 * - caller frames: the line in the caller that makes the call — recorded by the profile (pprof caller
 *   lines), or found by attribution (the only call to that callee in the caller's source) — else the
 *   caller's start line (@datadog/pprof's convention). So `go tool pprof -list` and `-cum -lines` show the
 *   line that makes the call, with the callee's cumulative time;
 * - positions are what the user edits: source-mapped files and lines where the model mapped them;
 * - `Function.start_line`, labels on every sample (Hotpath version, git revision, Node version, route, run,
 *   compare side…), `time_nanos` (wall clock) and `duration_nanos`.
 */
import { gzipSync } from 'node:zlib';
import { Function as PFunction, Label, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';
import type { Attribution } from '../attribution/types';
import { displayName, displayPosition } from '../profile/hotspots';
import { AMBIGUOUS_LINE } from '../profile/lines';
import type { ProfileModel } from '../profile/types';

export interface PprofExportOptions {
  /** Labels put on every sample: `{ hotpath: '0.1.0', node: 'v24.1.0', route: 'GET /orders' }`. */
  labels?: Record<string, string | number | undefined | null>;
  /** When the profile was recorded (epoch ms); the export's time_nanos. */
  startedAtMs?: number;
  /** What the profile was read from, for the comment. */
  source?: string;
  /** A heap model that carries no origin (V8's sampling heap profile, `--memory`): its unit and sample type. */
  heap?: { unit: 'bytes' | 'objects'; sampleType: string };
}

export interface PprofExport {
  /** Gzipped protobuf. */
  bytes: Buffer;
  sampleType: string;
  /** Totals written, in the export's units: what `go tool pprof -top` reports as its total. */
  totalValue: number;
  totalSamples: number;
  /** Time left out because it was (idle), ms; 0 for heap models. */
  idleExcludedMs: number;
  /** Caller frames given the call-site line (profile-recorded or found by attribution) / all caller frames of user code. */
  callerLines: { placed: number; callerFrames: number };
}

/** Integers split like `shares` (largest remainder), summing exactly to `total`. */
function apportion(total: number, shares: number[]): number[] {
  const sum = shares.reduce((a, b) => a + b, 0);
  if (total <= 0) return shares.map(() => 0);
  if (sum <= 0) return shares.map((_, i) => (i === 0 ? total : 0));
  const exact = shares.map((s) => (s * total) / sum);
  const out = exact.map(Math.floor);
  let left = total - out.reduce((a, b) => a + b, 0);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (let k = 0; left > 0 && k < order.length; k++, left--) out[order[k][1]]++;
  return out;
}

export function exportPprof(model: ProfileModel, attribution: Attribution | null, options: PprofExportOptions = {}): PprofExport {
  const strings = new StringTable();
  const unit = options.heap?.unit ?? model.origin?.unit ?? 'us';
  const typeName = unit === 'us' ? 'cpu' : options.heap?.sampleType ?? model.origin?.sampleType?.type ?? (unit === 'bytes' ? 'alloc_space' : 'alloc_objects');
  const sampleTypes = unit === 'objects'
    ? [new ValueType({ type: strings.dedup(typeName), unit: strings.dedup('count') })]
    : [new ValueType({ type: strings.dedup('samples'), unit: strings.dedup('count') }), new ValueType({ type: strings.dedup(typeName), unit: strings.dedup(unit === 'us' ? 'nanoseconds' : 'bytes') })];
  const toValue = (us: number) => Math.round(unit === 'us' ? us * 1000 : us);
  const { nodes, functions, lines } = model;

  // Functions: display name, file and start line (what the user edits).
  const functionIds = new Int32Array(functions.length);
  const pfunctions: PFunction[] = [];
  const displayFile: string[] = [];
  const startLine = new Int32Array(functions.length);
  functions.forEach((info, f) => {
    const pos = displayPosition(info);
    displayFile.push(pos.file);
    startLine[f] = pos.line ?? 0;
    const name = strings.dedup(displayName(info));
    const id = pfunctions.length + 1;
    functionIds[f] = id;
    pfunctions.push(new PFunction({ id, name, systemName: name, filename: strings.dedup(pos.file), startLine: pos.line ?? 0 }));
  });

  const locations: Location[] = [];
  const locationIds = new Map<number, number>();
  const locationOf = (f: number, line: number): number => {
    const key = f * 4294967296 + line;
    let id = locationIds.get(key);
    if (id === undefined) {
      id = locations.length + 1;
      locationIds.set(key, id);
      locations.push(new Location({ id, line: [new Line({ functionId: functionIds[f], line })] }));
    }
    return id;
  };

  // The display line of a model line entry, in its function's display file; 0 when it is not there
  // (an inlined callee's tick, or a line a source map could not place).
  const entryLine = (e: number): number => {
    const f = lines.func[e];
    if (lines.maybeInlined[e]) return 0;
    const original = lines.originalLine[e];
    if (original === AMBIGUOUS_LINE) return 0;
    if (original > 0) return lines.originalFile[e] === displayFile[f] ? original : 0;
    return functions[f].originalFile === undefined ? lines.line[e] : 0;
  };

  // Caller lines: per node, the line of its parent's function that made the call.
  let placed = 0;
  let callerFrames = 0;
  const callerLine = new Int32Array(model.nodeCount);
  for (let v = 0; v < model.nodeCount; v++) {
    const p = nodes.parent[v];
    if (p < 0 || p === model.rootIndex) continue;
    const pf = nodes.func[p];
    const info = functions[pf];
    let line = 0;
    const recorded = nodes.callLine?.[v] ?? 0;
    if (recorded > 0 && info.originalFile === undefined) line = recorded;
    else if (attribution) {
      const site = attribution.callSites.get(`${pf}:${nodes.func[v]}`);
      if (site?.status === 'placed' && site.site.file === displayFile[pf]) line = site.site.line;
    }
    if (info.category === 'user') {
      callerFrames++;
      if (line > 0) placed++;
    }
    callerLine[v] = line > 0 ? line : startLine[pf];
  }

  // Samples per node: its stack (leaf first) and its self time split over its lines.
  const hits = new Float64Array(model.nodeCount);
  for (let i = 0; i < model.samples.length; i++) hits[model.samples[i]]++;
  const samples: Sample[] = [];
  const labels = Object.entries(options.labels ?? {})
    .filter(([, v]) => v !== undefined && v !== null && v !== '')
    .map(([k, v]) => (typeof v === 'number' ? new Label({ key: strings.dedup(k), num: v }) : new Label({ key: strings.dedup(k), str: strings.dedup(String(v)) })));
  let totalValue = 0;
  let totalSamples = 0;
  let idleUs = 0;
  const stack: number[] = [];
  for (let v = 0; v < model.nodeCount; v++) {
    const self = nodes.selfUs[v];
    // A sample with no duration (the last one, as V8 times them) still counts as a sample.
    if ((!(self > 0) && hits[v] === 0) || v === model.rootIndex) continue;
    const f = nodes.func[v];
    if (functions[f].category === 'idle') {
      idleUs += self;
      continue;
    }
    stack.length = 0;
    for (let c = v, a = nodes.parent[v]; a >= 0 && a !== model.rootIndex; c = a, a = nodes.parent[a]) stack.push(locationOf(nodes.func[a], callerLine[c]));
    // This node's self time by line: the model's line records, the rest on the start line.
    const parts = new Map<number, number>();
    let covered = 0;
    for (let r = lines.nodeStart[v]; r < lines.nodeStart[v + 1]; r++) {
      const e = lines.nodeEntry[r];
      const line = entryLine(e) || startLine[f];
      parts.set(line, (parts.get(line) ?? 0) + lines.nodeUs[r]);
      covered += lines.nodeUs[r];
    }
    if (self - covered > 1e-9 || parts.size === 0) parts.set(startLine[f], (parts.get(startLine[f]) ?? 0) + Math.max(0, self - covered));
    const entries = [...parts];
    const counts = apportion(Math.round(hits[v]), entries.map(([, us]) => us));
    entries.forEach(([line, us], i) => {
      const value = toValue(us);
      if (value <= 0 && counts[i] <= 0) return;
      const locationId = [locationOf(f, line), ...stack];
      const values = unit === 'objects' ? [value] : [counts[i], value];
      samples.push(new Sample({ locationId, value: values, label: labels }));
      totalValue += value;
      totalSamples += counts[i];
    });
  }

  const idleMs = Math.round(idleUs) / 1000;
  const comments = [
    `hotpath: exported from ${options.source ?? model.source}`,
    unit === 'us'
      ? `cpu is the sampled time of the thread without (idle)${idleMs > 0 ? ` (${idleMs} ms of idle left out)` : ''}; samples count V8's samples`
      : `${typeName} as the profile recorded it`,
    `caller frames carry the line that makes the call where the profile recorded it or Hotpath's attribution found it (${placed} of ${callerFrames} caller frames of user code), else the caller's start line`,
  ];
  const meanInterval = model.sampleCount > 0 ? (model.durationUs / model.sampleCount) * 1000 : 0;
  const profile = new Profile({
    sampleType: sampleTypes,
    sample: samples,
    location: locations,
    function: pfunctions,
    stringTable: strings,
    timeNanos: BigInt(Math.round(options.startedAtMs ?? Date.now())) * 1000000n,
    durationNanos: Math.round(Math.max(0, model.endTime - model.startTime, model.durationUs) * (unit === 'us' ? 1000 : 0)),
    ...(unit === 'us' ? { periodType: new ValueType({ type: strings.dedup('cpu'), unit: strings.dedup('nanoseconds') }), period: Math.round(meanInterval) } : {}),
    comment: comments.map((c) => strings.dedup(c)),
    defaultSampleType: strings.dedup(typeName),
  });
  return {
    bytes: gzipSync(profile.encode()),
    sampleType: typeName,
    totalValue,
    totalSamples,
    idleExcludedMs: unit === 'us' ? idleMs : 0,
    callerLines: { placed, callerFrames },
  };
}
