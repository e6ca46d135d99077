import { displayName, displayPosition, rankLines, type Hotspot, type ProfileModel } from '../profile';
import type { V8FunctionSignals } from '../v8/types';
import type { Annotations, CallerShare, FileAnnotations, FunctionAnnotation, LineAnnotation } from './types';

export interface AnnotationOptions {
  profilePath: string;
  /** CodeLens candidates: the hottest user functions by self time (default 15)… */
  maxFunctions?: number;
  /** …with at least this self share in % (default 0.5). */
  minFunctionSelfPct?: number;
  /** Hot lines: at most this many (default 150), each with at least `minLineSelfPct` % (default 0.1). */
  maxLines?: number;
  minLineSelfPct?: number;
  /** Callers listed per function (default 3). */
  maxCallers?: number;
  /** V8 signals per function, from the analysis' hotspots (matched by name, file and line). */
  hotspots?: readonly (Hotspot & { v8?: V8FunctionSignals })[];
}

const round1 = (x: number): number => Math.round(x * 10) / 10;
const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * Callers of `func`, by the share of its total time they account for. Only outermost frames of `func`
 * count (a recursive call's caller is the function itself, which tells nothing).
 */
function callersOf(model: ProfileModel, func: number, maxCallers: number): CallerShare[] {
  const { nodes, functions, functionTotalUs } = model;
  const byCaller = new Map<number, number>();
  for (let v = 0; v < model.nodeCount; v++) {
    if (nodes.func[v] !== func) continue;
    let outermost = true;
    for (let a = nodes.parent[v]; a >= 0; a = nodes.parent[a]) {
      if (nodes.func[a] === func) { outermost = false; break; }
    }
    const p = nodes.parent[v];
    if (!outermost || p < 0 || p === model.rootIndex) continue;
    const caller = nodes.func[p];
    byCaller.set(caller, (byCaller.get(caller) ?? 0) + nodes.totalUs[v]);
  }
  const total = functionTotalUs[func] || 1;
  return [...byCaller.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, maxCallers)
    .map(([f, us]) => {
      const pos = displayPosition(functions[f]);
      return { function: displayName(functions[f]), file: pos.file, line: pos.line, sharePct: round1((us * 100) / total) };
    });
}

function fileEntry(files: Map<string, FileAnnotations>, file: string): FileAnnotations {
  let entry = files.get(file);
  if (!entry) files.set(file, (entry = { file, functions: [], lines: [], deopts: [] }));
  return entry;
}

/** Per-file CodeLens and hot-line data from a profile model (user code only: that is what users edit). */
export function buildAnnotations(model: ProfileModel, options: AnnotationOptions): Annotations {
  const maxFunctions = options.maxFunctions ?? 15;
  const minFunctionSelfPct = options.minFunctionSelfPct ?? 0.5;
  const maxLines = options.maxLines ?? 150;
  const minLineSelfPct = options.minLineSelfPct ?? 0.1;
  const maxCallers = options.maxCallers ?? 3;
  const duration = model.durationUs || 1;
  const files = new Map<string, FileAnnotations>();

  // Rank of every function by self time, so a CodeLens can say "#2 in this profile".
  const order = Array.from(model.functionSelfUs.keys()).sort((a, b) => model.functionSelfUs[b] - model.functionSelfUs[a]);
  const rankOf = new Map<number, number>();
  order.forEach((f, i) => rankOf.set(f, i + 1));

  const callerCache = new Map<string, CallerShare[]>();
  const funcByKey = new Map<string, number>();
  model.functions.forEach((info, f) => {
    const pos = displayPosition(info);
    funcByKey.set(`${displayName(info)}\n${pos.file}\n${pos.line}`, f);
  });

  let taken = 0;
  for (const f of order) {
    if (taken >= maxFunctions) break;
    const info = model.functions[f];
    if (info.category !== 'user') continue;
    const selfPct = (model.functionSelfUs[f] * 100) / duration;
    if (selfPct < minFunctionSelfPct) break;
    const pos = displayPosition(info);
    if (pos.line === null || !pos.file) continue;
    taken++;
    const name = displayName(info);
    const callers = callersOf(model, f, maxCallers);
    callerCache.set(name + '\n' + pos.file, callers);
    const hotspot = options.hotspots?.find((h) => h.function === name && h.file === pos.file && h.line === pos.line);
    const annotation: FunctionAnnotation = {
      function: name, file: pos.file, line: pos.line,
      selfMs: round2(model.functionSelfUs[f] / 1000), selfPct: round1(selfPct),
      totalMs: round2(model.functionTotalUs[f] / 1000), totalPct: round1((model.functionTotalUs[f] * 100) / duration),
      rank: rankOf.get(f)!, callers,
      ...(hotspot?.v8 ? { v8: hotspot.v8 } : {}),
    };
    fileEntry(files, pos.file).functions.push(annotation);
  }

  const meanIntervalUs = model.sampleCount > 0 ? model.durationUs / model.sampleCount : 1000;
  for (const hot of rankLines(model, { limit: maxLines })) {
    if (hot.selfPct < minLineSelfPct) break;
    // The function the line's time ran in: same name, and its file is the line's file when we can tell.
    let callers = callerCache.get(hot.function + '\n' + hot.file);
    if (!callers) {
      let f = -1;
      for (const [key, index] of funcByKey) if (key.startsWith(hot.function + '\n' + hot.file + '\n')) { f = index; break; }
      callers = f >= 0 ? callersOf(model, f, maxCallers) : [];
      callerCache.set(hot.function + '\n' + hot.file, callers);
    }
    const line: LineAnnotation = {
      file: hot.file, line: hot.line, selfMs: hot.selfMs, selfPct: hot.selfPct,
      samples: Math.max(1, Math.round((hot.selfMs * 1000) / meanIntervalUs)),
      function: hot.function, maybeInlined: hot.maybeInlined,
      ...(hot.inlinedFunction ? { inlinedFunction: hot.inlinedFunction } : {}),
      callers,
    };
    fileEntry(files, hot.file).lines.push(line);
  }
  // Deopt positions of every hotspot V8 described (also dependencies': the failed check may sit in user code).
  for (const h of options.hotspots ?? []) {
    for (const d of h.v8?.deopts ?? []) {
      if (d.osr || !d.file || d.line <= 0) continue;
      fileEntry(files, d.file).deopts.push({
        file: d.file, line: d.line, column: d.column, function: h.function, kind: d.kind, reason: d.reason, count: d.count,
        ...(d.inlinedFrom ? { inlinedFrom: d.inlinedFrom } : {}), ...(d.explanation ? { explanation: d.explanation } : {}),
      });
    }
  }
  return { profilePath: options.profilePath, durationMs: round2(model.durationUs / 1000), sampleCount: model.sampleCount, files };
}
