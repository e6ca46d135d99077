/**
 * Call-site lines the profile itself records. A .cpuprofile has none (attribution searches the caller's
 * source for them, callSites.ts); a pprof profile with caller lines (@datadog/pprof `lineNumbers: true`,
 * Hotpath's own export) names, per frame, the line of the call it was making. Those are facts, not
 * inferences: each node's call is charged to its own line, even when one caller calls the same callee
 * from several lines, and no source is read for them.
 */
import type { ProfileModel } from '../profile/types';
import type { CallPairs } from './pairs';
import type { Scripts, DisplayPos } from './scripts';
import type { CallSiteResult } from './types';

export interface ProfileCallSites {
  /** Per node: the line id of its call site in its parent's function, or -1. */
  nodeSite: Int32Array;
  /** Per pair with recorded lines: the heaviest line (for the summaries that name one line per caller). */
  pairSites: Map<number, CallSiteResult>;
}

export async function profileCallSites(model: ProfileModel, scripts: Scripts, pairs: CallPairs, lineId: (pos: DisplayPos) => number): Promise<ProfileCallSites | null> {
  const callLine = model.nodes.callLine;
  if (!callLine) return null;
  const { nodes, functions } = model;
  const nodeSite = new Int32Array(model.nodeCount).fill(-1);
  const display = new Map<string, Promise<DisplayPos | 'ambiguous'>>();
  const weights = new Map<number, Map<number, { us: number; pos: DisplayPos }>>();
  for (let v = 0; v < model.nodeCount; v++) {
    const line = callLine[v];
    const p = nodes.parent[v];
    if (line <= 0 || p < 0) continue;
    const caller = functions[nodes.func[p]];
    if (caller.category !== 'user' || !caller.file) continue;
    const key = `${caller.file}\n${line}`;
    let pos = display.get(key);
    if (!pos) display.set(key, (pos = scripts.displayLine(caller.file, line)));
    const shown = await pos;
    if (shown === 'ambiguous') continue;
    const id = lineId(shown);
    nodeSite[v] = id;
    const pair = pairs.nodePair[v];
    let byLine = weights.get(pair);
    if (!byLine) weights.set(pair, (byLine = new Map()));
    const w = byLine.get(id);
    if (w) w.us += nodes.totalUs[v];
    else byLine.set(id, { us: nodes.totalUs[v], pos: shown });
  }
  const pairSites = new Map<number, CallSiteResult>();
  for (const [pair, byLine] of weights) {
    let best: { us: number; pos: DisplayPos } | undefined;
    for (const w of byLine.values()) if (!best || w.us > best.us) best = w;
    pairSites.set(pair, { status: 'placed', site: best!.pos });
  }
  return { nodeSite, pairSites };
}
