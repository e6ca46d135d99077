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
 * Callers of each wanted function, by the share of its total time they account for, in one pass over
 * the call tree. Only outermost frames count (a recursive call's caller is the function itself, which
 * tells nothing).
 */
function callersOf(model: ProfileModel, wanted: ReadonlySet<number>, maxCallers: number): Map<number, CallerShare[]> {
  const { nodes, functions, functionTotalUs } = model;
  const byFunction = new Map<number, Map<number, number>>();
  for (let v = 0; v < model.nodeCount; v++) {
    const func = nodes.func[v];
    if (!wanted.has(func)) continue;
    const p = nodes.parent[v];
    if (p < 0 || p === model.rootIndex) continue;
    let outermost = true;
    for (let a = p; a >= 0; a = nodes.parent[a]) {
      if (nodes.func[a] === func) { outermost = false; break; }
    }
    if (!outermost) continue;
    let byCaller = byFunction.get(func);
    if (!byCaller) byFunction.set(func, (byCaller = new Map()));
    byCaller.set(nodes.func[p], (byCaller.get(nodes.func[p]) ?? 0) + nodes.totalUs[v]);
  }
  const out = new Map<number, CallerShare[]>();
  for (const func of wanted) {
    const total = functionTotalUs[func] || 1;
    out.set(func, [...(byFunction.get(func) ?? new Map<number, number>()).entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, maxCallers)
      .map(([f, us]) => {
        const pos = displayPosition(functions[f]);
        return { function: displayName(functions[f]), file: pos.file, line: pos.line, sharePct: round1((us * 100) / total) };
      }));
  }
  return out;
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
  const rankOf = new Int32Array(order.length);
  order.forEach((f, i) => { rankOf[f] = i + 1; });

  // The hot functions (CodeLens) and hot lines, then the callers of all their functions in one pass.
  const hotFunctions: number[] = [];
  for (const f of order) {
    if (hotFunctions.length >= maxFunctions) break;
    const info = model.functions[f];
    if (info.category !== 'user') continue;
    if ((model.functionSelfUs[f] * 100) / duration < minFunctionSelfPct) break;
    const pos = displayPosition(info);
    if (pos.line !== null && pos.file) hotFunctions.push(f);
  }
  const ranked = rankLines(model, { limit: maxLines }); // by self time, descending
  const cut = ranked.findIndex((l) => l.selfPct < minLineSelfPct);
  const hotLines = cut < 0 ? ranked : ranked.slice(0, cut);
  // A hot line's function: the one with its name in its file (the first, as rankLines names it).
  const byNameAndFile = new Map<string, number>();
  model.functions.forEach((info, f) => {
    const k = `${displayName(info)}\n${displayPosition(info).file}`;
    if (!byNameAndFile.has(k)) byNameAndFile.set(k, f);
  });
  const lineFunction = hotLines.map((l) => byNameAndFile.get(`${l.function}\n${l.file}`) ?? -1);
  const callers = callersOf(model, new Set([...hotFunctions, ...lineFunction.filter((f) => f >= 0)]), maxCallers);

  for (const f of hotFunctions) {
    const info = model.functions[f];
    const pos = displayPosition(info);
    const name = displayName(info);
    const hotspot = options.hotspots?.find((h) => h.function === name && h.file === pos.file && h.line === pos.line);
    const annotation: FunctionAnnotation = {
      function: name, file: pos.file, line: pos.line!,
      selfMs: round2(model.functionSelfUs[f] / 1000), selfPct: round1((model.functionSelfUs[f] * 100) / duration),
      totalMs: round2(model.functionTotalUs[f] / 1000), totalPct: round1((model.functionTotalUs[f] * 100) / duration),
      rank: rankOf[f], callers: callers.get(f) ?? [],
      ...(hotspot?.v8 ? { v8: hotspot.v8 } : {}),
    };
    fileEntry(files, pos.file).functions.push(annotation);
  }

  const meanIntervalUs = model.sampleCount > 0 ? model.durationUs / model.sampleCount : 1000;
  hotLines.forEach((hot, i) => {
    const line: LineAnnotation = {
      file: hot.file, line: hot.line, selfMs: hot.selfMs, selfPct: hot.selfPct,
      samples: Math.max(1, Math.round((hot.selfMs * 1000) / meanIntervalUs)),
      function: hot.function, maybeInlined: hot.maybeInlined,
      ...(hot.inlinedFunction ? { inlinedFunction: hot.inlinedFunction } : {}),
      callers: callers.get(lineFunction[i]) ?? [],
    };
    fileEntry(files, hot.file).lines.push(line);
  });

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
