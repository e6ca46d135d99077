/**
 * A decoded pprof profile → Hotpath's profile model, so every view that reads a .cpuprofile (ranking,
 * attribution, annotations, flamegraph, diff) reads a production profile unchanged.
 *
 * The model is a call tree of nodes (one per function per call path) with samples in time order. pprof is
 * a bag of weighted stacks, each a list of locations (leaf first), each location one or more lines
 * (several = inlining; the last is the outer function). So:
 * - every stack is walked root → leaf into a tree keyed by (parent node, function, the line in the parent
 *   that made the call): a .cpuprofile node per function per path, split further by call-site line when the
 *   profile has caller lines (@datadog/pprof `lineNumbers: true`, Hotpath's export). That line is kept per
 *   node (`nodes.callLine`) so attribution puts the call's inclusive time on the line that made it, exactly
 *   (a CPU profile has no call-site lines; attribution must search the caller's source for them);
 * - a leaf frame's line becomes a position tick with the sample's weight (a .cpuprofile's positionTicks),
 *   only in a line-level profile (see granularity.ts: most producers write the function's start line there);
 * - each pprof sample becomes one model sample whose duration is its value in the chosen sample type, in the
 *   model's unit (µs, or bytes / objects for heap profiles, as memory/heapProfile.ts does for V8's heap
 *   profile). pprof keeps no time order, so the flame chart's order is the file's;
 * - functions are keyed like a .cpuprofile's (name, file, start line, column): the start line from
 *   `Function.start_line`, else from the producer's conventions (names.ts), else — in a function-level
 *   profile — the frame's line, which is the start line there.
 */
import type { Warning } from '../common/warnings';
import { childListsFromParents } from '../profile/childLists';
import { modelFromRaw } from '../profile/model';
import type { ProfileOrigin } from '../profile/origin';
import type { PathMapReport } from '../profile/pathMap';
import type { RawProfile } from '../profile/scanner';
import type { Category, ProfileModel } from '../profile/types';
import { type DecodedPprof, pprofInvalid } from './decode';
import { detectGranularity, type Granularity } from './granularity';
import { LabelIndex, type LabelFilter } from './labels';
import { IndexList, NumberList } from './lists';
import { frameName, pyroscopeName } from './names';
import { chooseSampleType, sampleTypeNames } from './sampleTypes';

export interface PprofModelOptions {
  source: string;
  thread?: string;
  sampleType?: string;
  labels?: LabelFilter[];
  /** The profile's file names → local paths, for the files found here (pathMap.ts). */
  paths?: Map<string, string>;
  pathReport?: PathMapReport;
  /** Lines or functions, when the workspace's source told (granularityFromSource); else detected here. */
  granularity?: Granularity;
}

const TWO_32 = 4294967296;

/** Interned strings for the raw profile's string columns. */
class Strings {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  id(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(s);
      this.ids.set(s, id);
    }
    return id;
  }
}

/** Model functions keyed like buildFunctions keys them. */
class Functions {
  readonly name = new IndexList();
  readonly url = new IndexList();
  readonly script = new IndexList();
  readonly line = new IndexList();
  readonly column = new IndexList();
  readonly category = new Map<number, Category>();
  private readonly ids = new Map<string, number>();
  constructor(private readonly strings: Strings) {}

  id(name: string, url: string, line0: number, column0: number, category?: Category): number {
    const key = `${name}\u0000${url}\u0000${line0}\u0000${column0}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.name.length;
      this.ids.set(key, id);
      this.name.push(this.strings.id(name));
      this.url.push(this.strings.id(url));
      this.script.push(this.strings.id(String(this.strings.id(url))));
      this.line.push(line0);
      this.column.push(column0);
      if (category) this.category.set(id, category);
    }
    return id;
  }
}

/** The call tree being built: nodes keyed by (parent, function, call line) in an open-addressing table. */
class Trie {
  parent = new IndexList(1024);
  func = new IndexList(1024);
  callLine = new IndexList(1024);
  private slots = new Int32Array(4096).fill(-1);

  constructor(rootFunc: number) {
    this.parent.push(-1);
    this.func.push(rootFunc);
    this.callLine.push(0);
  }

  get count(): number {
    return this.parent.length;
  }

  private static hash(p: number, f: number, l: number): number {
    let h = Math.imul(p, 0x9e3779b1) ^ Math.imul(f, 0x85ebca77) ^ Math.imul(l, 0xc2b2ae3d);
    h ^= h >>> 15;
    return h;
  }

  child(p: number, f: number, l: number): number {
    const mask = this.slots.length - 1;
    let slot = Trie.hash(p, f, l) & mask;
    for (;;) {
      const n = this.slots[slot];
      if (n < 0) break;
      if (this.parent.data[n] === p && this.func.data[n] === f && this.callLine.data[n] === l) return n;
      slot = (slot + 1) & mask;
    }
    const n = this.parent.length;
    this.parent.push(p);
    this.func.push(f);
    this.callLine.push(l);
    this.slots[slot] = n;
    if (this.parent.length * 2 > this.slots.length) this.rehash();
    return n;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = this.slots.length - 1;
    for (let n = 1; n < this.parent.length; n++) {
      let slot = Trie.hash(this.parent.data[n], this.func.data[n], this.callLine.data[n]) & mask;
      while (this.slots[slot] >= 0) slot = (slot + 1) & mask;
      this.slots[slot] = n;
    }
  }
}

function guessProducer(d: DecodedPprof, names: string[]): string {
  const comments = d.comments.map((c) => { try { return d.string(c, 'a comment'); } catch { return ''; } });
  if (comments.some((c) => c.startsWith('hotpath'))) return 'Hotpath';
  let pyro = 0;
  let named = 0;
  let datadog = false;
  for (let f = 0; f < d.functionCount; f++) {
    const name = names[f];
    const file = d.string(d.functionFilename[f], `function ${d.functionId[f]}`);
    if (name === 'Garbage Collection' || name.startsWith('(anonymous:L#')) datadog = true;
    if (file && name) {
      named++;
      if (pyroscopeName(name, file)) pyro++;
    }
  }
  if (named > 0 && pyro * 2 >= named) return 'Pyroscope SDK';
  const types = sampleTypeNames(d);
  if (datadog || types.some((t) => t.type === 'wall' && t.unit === 'nanoseconds')) return '@datadog/pprof';
  if (types.some((t) => t.type === 'wall' && t.unit === 'microseconds')) return 'pprof-nodejs';
  return 'unknown';
}

export function pprofToModel(d: DecodedPprof, options: PprofModelOptions): ProfileModel {
  const source = options.source;
  const chosen = chooseSampleType(d, options.sampleType);
  const typeCount = d.sampleTypes.length;
  const warnings: Warning[] = [];
  const skipped: ProfileOrigin['skipped'] = [];
  const skip = (what: string, count: number) => { if (count > 0) skipped.push({ what, count }); };

  // Ids → indices; profile.proto forbids 0 and duplicates (go tool pprof refuses them too).
  const locationIndex = new Map<number, number>();
  for (let l = 0; l < d.locationCount; l++) {
    const id = d.locationId[l];
    if (id === 0) throw pprofInvalid(source, `location ${l} has id 0, which profile.proto forbids`);
    if (locationIndex.has(id)) throw pprofInvalid(source, `location id ${id} appears more than once`);
    locationIndex.set(id, l);
  }
  const functionIndex = new Map<number, number>();
  for (let f = 0; f < d.functionCount; f++) {
    const id = d.functionId[f];
    if (id === 0) throw pprofInvalid(source, `function ${f} has id 0, which profile.proto forbids`);
    if (functionIndex.has(id)) throw pprofInvalid(source, `function id ${id} appears more than once`);
    functionIndex.set(id, f);
  }
  const rawNames: string[] = [];
  const files: string[] = [];
  for (let f = 0; f < d.functionCount; f++) {
    rawNames.push(d.string(d.functionName[f], `function ${d.functionId[f]}`));
    files.push(d.string(d.functionFilename[f], `function ${d.functionId[f]}`));
  }

  const weightOf = (s: number): number => {
    const start = d.sampleValueStart[s];
    return d.sampleValueStart[s + 1] - start === typeCount ? d.values[start + chosen.index] : NaN;
  };
  const granularity: Granularity = options.granularity ?? detectGranularity(d, functionIndex, locationIndex, weightOf);
  const lineLevel = granularity === 'lines';

  // Per line entry of every location: the model function of its frame and the frame's line (-1: left out).
  const strings = new Strings();
  const functions = new Functions(strings);
  const rootFunc = functions.id('(root)', '', -1, -1, 'root');
  const lineCount = d.lineFunction.length;
  const frameFunc = new Int32Array(lineCount);
  const frameLine = new Int32Array(lineCount);
  let danglingFunctions = 0;
  for (let k = 0; k < lineCount; k++) {
    const f = functionIndex.get(d.lineFunction[k]);
    if (f === undefined) {
      frameFunc[k] = -2;
      danglingFunctions++;
      continue;
    }
    // `columnNumbers: 'pack'` puts the column in the high 32 bits of the line.
    let line = d.lineLine[k];
    if (line >= TWO_32) line %= TWO_32;
    if (!(line > 0)) line = 0;
    frameLine[k] = line;
    const file = files[f];
    const url = options.paths?.get(file) ?? file;
    const named = frameName(rawNames[f], file, true);
    if (named.synthetic) {
      frameFunc[k] = -1;
      continue;
    }
    let start = 0;
    let column = 0;
    if (d.functionStartLine[f] > 0) start = d.functionStartLine[f];
    else if (!lineLevel) {
      // The frame's line is the function's start line in a function-level profile; the name's line (Datadog's
      // anonymous names, Pyroscope's suffix) says the same, and a column only the name gives.
      start = line || named.nameLine;
      if (named.nameColumn && named.nameLine === start) column = named.nameColumn;
    }
    frameFunc[k] = functions.id(named.name, url, start > 0 ? start - 1 : -1, column > 0 ? column - 1 : -1, named.category);
  }
  skip('frames naming a function the profile does not define (left out of their stacks)', danglingFunctions);

  const labels = new LabelIndex(d, options.labels ?? []);
  const trie = new Trie(rootFunc);
  const sampleNode = new IndexList(Math.max(64, d.sampleCount));
  const sampleWeight = new NumberList(Math.max(64, d.sampleCount));
  // Position ticks: (node, line) → weight; line -1 keeps a leaf without a line in its node's denominator.
  const tickIndex = new Map<number, number>();
  const tickNode = new IndexList();
  const tickLineList = new IndexList();
  const tickWeight = new NumberList();
  const addTick = (node: number, line: number, w: number) => {
    const key = node * 1048576 + (line + 1);
    let t = tickIndex.get(key);
    if (t === undefined) {
      t = tickNode.length;
      tickIndex.set(key, t);
      tickNode.push(node);
      tickLineList.push(line);
      tickWeight.push(0);
    }
    tickWeight.data[t] += w;
  };

  // Stacks repeat (one sample per stack and label set): a stack's walk is done once. Keyed by a hash of
  // its location ids, checked against the first sample that had it (no string per sample).
  const stackMemo = new Map<number, { start: number; end: number; node: number; line: number }[]>();
  const ids = d.locIds;
  const memoOf = (start: number, end: number, hash: number) => {
    const list = stackMemo.get(hash);
    if (!list) return undefined;
    outer: for (const m of list) {
      if (m.end - m.start !== end - start) continue;
      for (let i = 0; i < end - start; i++) if (ids[m.start + i] !== ids[start + i]) continue outer;
      return m;
    }
    return undefined;
  };
  let badValueCount = 0;
  let negative = 0;
  let dangling = 0;
  let filtered = 0;
  let countSum = 0;
  const frames: number[] = [];
  const lines: number[] = [];
  for (let s = 0; s < d.sampleCount; s++) {
    const w = weightOf(s);
    if (Number.isNaN(w)) { badValueCount++; continue; }
    if (w < 0) { negative++; continue; }
    if (w === 0) continue;
    if (!labels.matches(s)) { filtered++; continue; }
    const locStart = d.sampleLocStart[s];
    const locEnd = d.sampleLocStart[s + 1];
    let hash = locEnd - locStart;
    for (let i = locStart; i < locEnd; i++) hash = (Math.imul(hash, 0x01000193) ^ ids[i] ^ (ids[i] / 4294967296)) | 0;
    let leaf: { node: number; line: number } | undefined = memoOf(locStart, locEnd, hash);
    if (leaf === undefined) {
      frames.length = 0;
      lines.length = 0;
      let ok = true;
      // Root → leaf: locations from the last, lines of each from the last (the outer function).
      for (let i = locEnd - 1; i >= locStart && ok; i--) {
        const l = locationIndex.get(d.locIds[i]);
        if (l === undefined) { ok = false; break; }
        for (let k = d.locationLineStart[l + 1] - 1; k >= d.locationLineStart[l]; k--) {
          if (frameFunc[k] < 0) continue;
          frames.push(frameFunc[k]);
          lines.push(frameLine[k]);
        }
      }
      if (!ok) { dangling++; continue; }
      let node = 0;
      for (let i = 0; i < frames.length; i++) {
        const callLine = lineLevel && i > 0 ? lines[i - 1] : 0;
        node = trie.child(node, frames[i], callLine);
      }
      const memo = { start: locStart, end: locEnd, node, line: frames.length ? lines[frames.length - 1] : 0 };
      const list = stackMemo.get(hash);
      if (list) list.push(memo);
      else stackMemo.set(hash, [memo]);
      leaf = memo;
    }
    const amount = w * chosen.scale;
    sampleNode.push(leaf.node);
    sampleWeight.push(amount);
    if (lineLevel && leaf.node !== 0) addTick(leaf.node, leaf.line > 0 ? leaf.line : -1, amount);
    if (chosen.countIndex >= 0) countSum += d.values[d.sampleValueStart[s] + chosen.countIndex];
    labels.add(s, amount);
  }
  skip(`samples with a number of values other than the ${typeCount} sample types declared`, badValueCount);
  skip(`samples with a negative ${chosen.type} value`, negative);
  skip('samples naming a location the profile does not define', dangling);
  if (labels.filtering && sampleNode.length === 0) {
    const missing = labels.missingKeys();
    throw pprofInvalid(source, `no sample has ${(options.labels ?? []).map((f) => `${f.key}=${f.value}`).join(' and ')}${missing.length ? ` (no sample carries the label${missing.length > 1 ? 's' : ''} ${missing.map((k) => `"${k}"`).join(', ')} at all)` : ''}`, 'Check the label names and values (`hotpath report --json` lists them under `pprof.labels`).');
  }

  const raw = rawProfile(trie, functions, strings, sampleNode, sampleWeight, { tickNode, tickLineList, tickWeight });
  const model = modelFromRaw(raw, source, options.thread, { absurdUs: Infinity });
  // Pseudo-frames under the producers' names get V8's categories.
  for (const [f, category] of functions.category) {
    const m = model.nodes.func[rawFirstNodeOf(trie, f)];
    if (m !== undefined && model.functions[m]) model.functions[m].category = category;
  }
  recountPseudoTime(model);
  if (lineLevel) {
    const callLine = new Int32Array(model.nodeCount);
    for (let v = 0; v < model.nodeCount; v++) callLine[v] = trie.callLine.data[model.nodes.id[v] - 1];
    model.nodes.callLine = callLine;
  }
  if (chosen.countIndex >= 0 && countSum > 0) model.sampleCount = countSum;

  for (const s of skipped) warnings.push({ code: 'PPROF_DATA_SKIPPED', message: `${source}: ${s.count} ${s.what}. The rest of the profile is shown.` });
  if (options.pathReport?.notFoundCount) {
    const r = options.pathReport;
    const list = r.notFound.slice(0, 3).map((n) => `${n.file} (${n.reason})`).join('; ');
    warnings.push({ code: 'PATHS_NOT_FOUND', message: `${r.notFoundCount} of the ${r.files} files this profile names were not found in the workspace, so nothing is shown on them in the editor: ${list}${r.notFoundCount > 3 ? '; …' : ''}. Map them with --map-path FROM=TO (VS Code: hotpath.pathMappings).` });
  }
  const origin: ProfileOrigin = {
    format: 'pprof',
    producer: guessProducer(d, rawNames),
    unit: chosen.modelUnit,
    sampleType: { type: chosen.type, unit: chosen.unit, reason: chosen.reason },
    sampleTypes: sampleTypeNames(d),
    granularity,
    ...(d.timeNanos > 0 ? { timeMs: Math.round(d.timeNanos / 1e6) } : {}),
    ...(d.durationNanos > 0 ? { durationMs: d.durationNanos / 1e6 } : {}),
    labels: { filters: options.labels ?? [], breakdown: labels.breakdown(), keptSamples: sampleNode.length, totalSamples: d.sampleCount },
    ...(options.pathReport ? { paths: options.pathReport } : {}),
    skipped,
  };
  model.origin = origin;
  model.warnings.push(...warnings);
  return model;
}

/** The first trie node of a raw function (the model keeps raw node ids: node id = trie index + 1). */
function rawFirstNodeOf(trie: Trie, f: number): number {
  for (let n = 0; n < trie.count; n++) if (trie.func.data[n] === f) return n;
  return -1;
}

/** idle/gc/program totals after categories were corrected (modelFromRaw summed them by V8's names). */
function recountPseudoTime(model: ProfileModel): void {
  let idle = 0;
  let gc = 0;
  let program = 0;
  model.functions.forEach((info, f) => {
    if (info.category === 'idle') idle += model.functionSelfUs[f];
    else if (info.category === 'gc') gc += model.functionSelfUs[f];
    else if (info.category === 'program') program += model.functionSelfUs[f];
  });
  model.idleUs = idle;
  model.gcUs = gc;
  model.programUs = program;
}

function rawProfile(
  trie: Trie, functions: Functions, strings: Strings, sampleNode: IndexList, sampleWeight: NumberList,
  ticks: { tickNode: IndexList; tickLineList: IndexList; tickWeight: NumberList },
): RawProfile {
  const n = trie.count;
  const parent = trie.parent.view();
  const func = trie.func.view();
  const id = new Int32Array(n);
  for (let v = 0; v < n; v++) id[v] = v + 1;
  const { childCount, childStart, childIds } = childListsFromParents(parent, n);
  // Ticks grouped by node.
  const T = ticks.tickNode.length;
  const tickCountOf = new Int32Array(n);
  for (let t = 0; t < T; t++) tickCountOf[ticks.tickNode.data[t]]++;
  const tickStart = new Int32Array(n);
  for (let v = 1; v < n; v++) tickStart[v] = tickStart[v - 1] + tickCountOf[v - 1];
  const tfill = tickStart.slice();
  const tickLine = new Int32Array(T);
  const tickCount = new Float64Array(T);
  for (let t = 0; t < T; t++) {
    const at = tfill[ticks.tickNode.data[t]]++;
    tickLine[at] = ticks.tickLineList.data[t];
    tickCount[at] = ticks.tickWeight.data[t];
  }
  // Samples: sample i lasts until sample i+1 (timeDeltas[i+1] = its weight); the last until endTime.
  const S = sampleNode.length;
  const samples = new Int32Array(S);
  const timeDeltas = new Float64Array(S);
  let total = 0;
  for (let i = 0; i < S; i++) {
    samples[i] = sampleNode.data[i] + 1;
    timeDeltas[i] = i === 0 ? 0 : sampleWeight.data[i - 1];
    total += sampleWeight.data[i];
  }
  const pick = (col: IndexList) => {
    const out = new Int32Array(n);
    for (let v = 0; v < n; v++) out[v] = col.data[func[v]];
    return out;
  };
  return {
    nodeCount: n, id,
    functionName: pick(functions.name), url: pick(functions.url), scriptId: pick(functions.script),
    lineNumber: pick(functions.line), columnNumber: pick(functions.column),
    hitCount: new Int32Array(n), parentId: new Float64Array(n).fill(NaN), deoptReason: new Int32Array(n).fill(-1),
    childStart, childCount, childIds, tickStart, tickCountOf, tickLine, tickCount,
    strings: strings.list, startTime: 0, endTime: total, samples, timeDeltas, vscode: null,
  };
}
