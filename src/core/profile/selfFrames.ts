/**
 * Hotpath's own frames in a profile: its preloads (`hotpath-preload.js`, and the timing, startup and bench preloads, wherever installed) —
 * in script mode the program is paused in it (`waitForDebugger`) while the profiler starts — the code
 * Hotpath evaluates in the target over the inspector (the V8 probes, the exit hook, the event-loop
 * monitor and its 5 ms tick, the worker hub's wait for a turn), and everything they call. That time is
 * profiler overhead, never a hotspot: it is left out of rankings and reported as one number.
 *
 * Code evaluated over the inspector has no script file (its frames' url is ''), so it is told by name:
 * every function Hotpath evaluates in a target is named `hotpath…` or `__hotpath…` (a unit test reads
 * the sources and holds every such function to it). A function of the app's own has a url, and
 * `eval`/`new Function` code of the app is not named so.
 */
import { displayName, displayPosition } from './hotspots';
import type { ProfileModel } from './types';

/** Hotpath's, whatever the url (the listen observer is installed in the app's server objects by the preload). */
const HOTPATH_FUNCTIONS = new Set(['__hotpathV8ProbeLoop', 'hotpathV8ExitHook', 'hotpathObserveListen']);
/** The name of a function Hotpath evaluates in a target (no url): `hotpathLoopTick`, `__hotpathV8ProbeLoop`. */
const EVALUATED_NAME = /^_*hotpath[A-Z]\w*$/;
const PRELOAD_URL = /(^|[\\/])hotpath-(timing-|startup-|bench-)?preload\.js$/;

/** A frame of Hotpath's own (its callees are then Hotpath's too). */
export function isHotpathFrame(functionName: string, url: string): boolean {
  return HOTPATH_FUNCTIONS.has(functionName) || (url === '' ? EVALUATED_NAME.test(functionName) : PRELOAD_URL.test(url));
}

export interface HotpathOverhead {
  /** Self time under Hotpath's frames, µs. */
  us: number;
  /** Functions whose whole self time is under Hotpath's frames (model indices): never hotspots. */
  functions: Set<number>;
}

/** One pass over the call tree in pre-order: a node is Hotpath's if it or an ancestor is. */
export function hotpathOverhead(model: ProfileModel): HotpathOverhead {
  const { nodes, functions, functionSelfUs } = model;
  const inside = new Uint8Array(model.nodeCount);
  const insideUs = new Map<number, number>();
  let us = 0;
  for (let k = 0; k < model.nodeCount; k++) {
    const v = nodes.preorder[k];
    const f = nodes.func[v];
    const p = nodes.parent[v];
    const info = functions[f];
    if ((p >= 0 && inside[p]) || isHotpathFrame(info.name, info.url)) {
      inside[v] = 1;
      us += nodes.selfUs[v];
      if (nodes.selfUs[v] > 0) insideUs.set(f, (insideUs.get(f) ?? 0) + nodes.selfUs[v]);
    }
  }
  const only = new Set<number>();
  for (const [f, t] of insideUs) if (t >= functionSelfUs[f] * 0.999) only.add(f);
  functions.forEach((info, f) => { if (isHotpathFrame(info.name, info.url)) only.add(f); });
  return { us, functions: only };
}

/** `name\0file\0line` of a model function as the ranked outputs show it, to match rows to functions. */
export function rowKeyOf(model: ProfileModel, f: number): string {
  const info = model.functions[f];
  const pos = displayPosition(info);
  return `${displayName(info)}\0${pos.file}\0${pos.line}`;
}

/** Rows (hotspots, hot lines) that belong to Hotpath's own functions are dropped. */
export function withoutHotpathRows<T extends { function: string; file: string; line: number | null }>(model: ProfileModel, rows: T[], overhead: HotpathOverhead): T[] {
  if (overhead.functions.size === 0) return rows;
  const keys = new Set([...overhead.functions].map((f) => rowKeyOf(model, f)));
  return rows.filter((r) => !keys.has(`${r.function}\0${r.file}\0${r.line}`) && !(r.file && PRELOAD_URL.test(r.file)));
}

/** Busy time of a raw profile (not idle, not the event loop's native time, not Hotpath's frames), µs. */
export function busyMicros(profile: { nodes: unknown[]; samples?: number[]; timeDeltas?: number[] }): number {
  type RawNode = { id: number; callFrame?: { functionName?: string; url?: string }; children?: number[] };
  const byId = new Map<number, RawNode>();
  for (const n of profile.nodes as RawNode[]) byId.set(n.id, n);
  const idle = new Set<number>();
  const childIds = new Set<number>();
  for (const n of byId.values()) for (const c of n.children ?? []) childIds.add(c);
  const stack: Array<[RawNode, boolean]> = [...byId.values()].filter((n) => !childIds.has(n.id)).map((n) => [n, false]);
  while (stack.length) {
    const [n, under] = stack.pop()!;
    const name = n.callFrame?.functionName ?? '';
    const mine = under || isHotpathFrame(name, n.callFrame?.url ?? '');
    if (mine || name === '(idle)' || name === '(program)' || name === '(root)') idle.add(n.id);
    for (const c of n.children ?? []) { const child = byId.get(c); if (child) stack.push([child, mine]); }
  }
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  let busy = 0;
  // Sample i lasts until sample i+1 (DevTools' convention, as in the model).
  for (let i = 0; i + 1 < samples.length; i++) if (!idle.has(samples[i]) && deltas[i + 1] > 0) busy += deltas[i + 1];
  return busy;
}
