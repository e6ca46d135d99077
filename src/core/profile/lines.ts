/**
 * Per-line self time from positionTicks, and the ranking of hot lines.
 *
 * A node's self time is split over its lines by tick share: time × ticks / hitCount (v8-signals §1.2).
 * Lines are those of the sampled (leaf) frame's script, 1-based. Ticks of inlined callees are charged to
 * the caller's node with the callee's line, possibly from another file (§1.6.1); a line before the
 * function's declaration is surely such a tick, so it is flagged `maybeInlined` (kept, never dropped).
 */
import type { FunctionTable } from './functions';
import type { RawProfile } from './scanner';
import type { CallTree } from './tree';
import type { HotLine, LineTable, ProfileModel, RankOptions } from './types';
import { roundMs, roundPct } from './units';

export function buildLineTable(raw: RawProfile, tree: CallTree, table: FunctionTable): LineTable {
  const { tickStart, tickCountOf, tickLine, tickCount, hitCount } = raw;
  // One entry per distinct (function, line), in order of first appearance. There are at most as many
  // entries as positionTicks records, so the columns are sized once; a typed open-addressing table
  // finds an entry (no Map per function: on big profiles those cost more than the rest of this pass,
  // mostly in the garbage collector).
  const capacity = tickLine.length;
  const func = new Int32Array(capacity);
  const line = new Int32Array(capacity);
  const selfUs = new Float64Array(capacity);
  let size = 1024;
  while (size < capacity * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  let count = 0;
  // Per node, which entries its ticks went to and how much time (CSR): inclusive per-line time needs
  // each node's own lines, not only the per-function sums (recursion must not count a line twice).
  const nodeStart = new Int32Array(raw.nodeCount + 1);
  const nodeEntry = new Int32Array(capacity);
  const nodeUs = new Float64Array(capacity);
  let records = 0;

  for (let v = 0; v < raw.nodeCount; v++) {
    nodeStart[v] = records;
    const n = tickCountOf[v];
    const self = tree.selfUs[v];
    if (n === 0 || self <= 0) continue;
    const start = tickStart[v];
    let ticks = 0;
    for (let k = start; k < start + n; k++) ticks += tickCount[k];
    // hitCount equals the tick sum in V8 output; trust the larger one so lines never exceed self time.
    const denominator = Math.max(hitCount[v], ticks);
    if (denominator <= 0) continue;
    const f = table.nodeFunction[v];
    for (let k = start; k < start + n; k++) {
      const l = tickLine[k];
      if (l < 0 || tickCount[k] === 0) continue;
      let h = Math.imul(f, 0x9e3779b1) ^ Math.imul(l, 0x85ebca77);
      h ^= h >>> 15;
      let slot = h & mask;
      let e = slots[slot];
      while (e >= 0 && (func[e] !== f || line[e] !== l)) {
        slot = (slot + 1) & mask;
        e = slots[slot];
      }
      if (e < 0) {
        e = count++;
        slots[slot] = e;
        func[e] = f;
        line[e] = l;
      }
      const us = (self * tickCount[k]) / denominator;
      selfUs[e] += us;
      nodeEntry[records] = e;
      nodeUs[records++] = us;
    }
  }
  nodeStart[raw.nodeCount] = records;

  const maybeInlined = new Uint8Array(count);
  for (let e = 0; e < count; e++) {
    const decl = table.functions[func[e]].line;
    if (decl !== null && line[e] < decl) maybeInlined[e] = 1;
  }
  return {
    count,
    func: func.subarray(0, count),
    line: line.subarray(0, count),
    selfUs: selfUs.subarray(0, count),
    maybeInlined,
    originalFile: new Array<string | undefined>(count).fill(undefined),
    originalLine: new Int32Array(count),
    nodeStart,
    nodeEntry: nodeEntry.subarray(0, records),
    nodeUs: nodeUs.subarray(0, records),
  };
}

/**
 * Hot lines of user and dependency code, ranked by self time. Entries that map to the same file:line
 * (e.g. two functions inlined into one line, or two generated lines mapping to one original) are
 * merged; surely-inlined ticks stay separate rows so they are not mistaken for the line's own cost.
 */
export function rankLines(model: ProfileModel, options: RankOptions = {}): HotLine[] {
  const limit = options.limit ?? 20;
  const { lines, functions } = model;
  // url/generatedLine: where a maybe-inlined row's ticks sit in the code V8 ran, to name the callee.
  interface Row { file: string; line: number; us: number; maybeInlined: boolean; byFunction: Map<number, number>; url: string; generatedLine: number }
  const rows = new Map<string, Row>();
  for (let e = 0; e < lines.count; e++) {
    const f = lines.func[e];
    const info = functions[f];
    if (info.category !== 'user' && info.category !== 'dependency') continue;
    if (lines.originalLine[e] === AMBIGUOUS_LINE) continue; // cannot be placed on a source line
    const mapped = lines.originalLine[e] > 0;
    const file = mapped ? lines.originalFile[e]! : info.file;
    const line = mapped ? lines.originalLine[e] : lines.line[e];
    const inlined = lines.maybeInlined[e] === 1;
    const key = `${inlined ? 1 : 0}\n${line}\n${file}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = { file, line, us: 0, maybeInlined: inlined, byFunction: new Map(), url: info.url, generatedLine: lines.line[e] };
      rows.set(key, row);
    }
    row.us += lines.selfUs[e];
    row.byFunction.set(f, (row.byFunction.get(f) ?? 0) + lines.selfUs[e]);
  }
  const ranked = [...rows.values()].sort((a, b) => b.us - a.us || a.file.localeCompare(b.file) || a.line - b.line);
  return ranked.slice(0, limit).map((row) => {
    let best = -1;
    let bestUs = -1;
    for (const [f, us] of row.byFunction) {
      if (us > bestUs) {
        best = f;
        bestUs = us;
      }
    }
    // Named only for the rows returned: the lookup scans the function table.
    const inlinedFunction = row.maybeInlined ? enclosingFunctionName(model, row.url, row.generatedLine) : undefined;
    return {
      file: row.file,
      line: row.line,
      selfMs: roundMs(row.us),
      selfPct: roundPct(row.us, model.durationUs),
      function: functions[best].name || '(anonymous)',
      maybeInlined: row.maybeInlined,
      ...(inlinedFunction ? { inlinedFunction } : {}),
    };
  });
}

/** Marks a line entry whose generated line spans many source lines (tsx, minified code): not placeable. */
export const AMBIGUOUS_LINE = -1;

/**
 * The function of `url` declared nearest above `line` (generated coordinates): for a tick charged to a
 * caller but lying outside it, the inlined callee it most likely belongs to. Only functions that appear
 * in the profile are known, and nested functions can mislead, hence "most likely".
 */
function enclosingFunctionName(model: ProfileModel, url: string, line: number): string | undefined {
  let best: { line: number; name: string } | undefined;
  for (const info of model.functions) {
    if (info.url !== url || info.line === null || info.line > line) continue;
    if (!best || info.line > best.line) best = { line: info.line, name: info.name || '(anonymous)' };
  }
  return best?.name;
}
