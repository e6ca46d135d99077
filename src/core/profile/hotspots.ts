/**
 * Functions ranked by self time, with the user code responsible for non-user hotspots: a hot builtin
 * or dependency is actionable only through the user function that calls it.
 */
import type { FunctionInfo, Hotspot, ProfileModel, RankOptions, UserCaller } from './types';
import { roundMs, roundPct } from './units';

const NEVER_HOT = new Set(['root', 'idle', 'program']);

export function rankHotspots(model: ProfileModel, options: RankOptions = {}): Hotspot[] {
  const limit = options.limit ?? 20;
  const { functions, functionSelfUs, functionTotalUs, durationUs } = model;
  const candidates: number[] = [];
  for (let f = 0; f < functions.length; f++) {
    if (!NEVER_HOT.has(functions[f].category) && functionSelfUs[f] > 0) candidates.push(f);
  }
  candidates.sort((a, b) => functionSelfUs[b] - functionSelfUs[a] || a - b);
  const top = candidates.slice(0, limit);
  const callers = userCallers(model, top.filter((f) => functions[f].category !== 'user'));

  return top.map((f, i) => {
    const info = functions[f];
    const position = displayPosition(info);
    return {
      rank: i + 1,
      function: displayName(info),
      file: position.file,
      line: position.line,
      column: position.column,
      selfMs: roundMs(functionSelfUs[f]),
      selfPct: roundPct(functionSelfUs[f], durationUs),
      totalMs: roundMs(functionTotalUs[f]),
      totalPct: roundPct(functionTotalUs[f], durationUs),
      category: info.category,
      package: info.package,
      userCaller: info.category === 'user' ? null : callers.get(f) ?? null,
    };
  });
}

/**
 * For each wanted function: the user function that most of its self time runs under, i.e. the nearest
 * user-code ancestor of each of its nodes, weighted by the node's self time. One pass over the tree.
 */
function userCallers(model: ProfileModel, wanted: number[]): Map<number, UserCaller | null> {
  const result = new Map<number, UserCaller | null>();
  if (wanted.length === 0) return result;
  const { nodes, functions } = model;
  const wantedSet = new Set(wanted);
  const weights = new Map<number, Map<number, number>>(); // hotspot → (user function → µs)
  const nearestUser = new Int32Array(model.nodeCount).fill(-1);
  for (let k = 0; k < model.nodeCount; k++) {
    const v = nodes.preorder[k];
    const f = nodes.func[v];
    const p = nodes.parent[v];
    const above = p >= 0 ? nearestUser[p] : -1;
    nearestUser[v] = functions[f].category === 'user' ? f : above;
    if (above >= 0 && nodes.selfUs[v] > 0 && wantedSet.has(f)) {
      let byCaller = weights.get(f);
      if (byCaller === undefined) weights.set(f, (byCaller = new Map()));
      byCaller.set(above, (byCaller.get(above) ?? 0) + nodes.selfUs[v]);
    }
  }
  for (const f of wanted) {
    let best = -1;
    let bestUs = 0;
    for (const [caller, us] of weights.get(f) ?? []) {
      if (us > bestUs) {
        best = caller;
        bestUs = us;
      }
    }
    if (best < 0) {
      result.set(f, null);
      continue;
    }
    const info = functions[best];
    const position = displayPosition(info);
    result.set(f, { function: displayName(info), file: position.file, line: position.line });
  }
  return result;
}

export function displayName(info: FunctionInfo): string {
  return info.name || '(anonymous)';
}

/** Original position when a source map applied, else the script's own. */
export function displayPosition(info: FunctionInfo): { file: string; line: number | null; column: number | null } {
  if (info.originalFile !== undefined) {
    return { file: info.originalFile, line: info.originalLine ?? null, column: info.originalColumn ?? null };
  }
  return { file: info.file || info.url, line: info.line, column: info.column };
}
