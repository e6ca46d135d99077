/**
 * Blocking episodes → lines. The loop monitor (monitorScript.ts) says when a turn of the event loop
 * lasted longer than the threshold; the CPU profile's own timestamps say what ran in that time. Each
 * episode's samples are charged to the line on top of the stack, or — when the work is in a callee
 * (a Node API, a dependency, a builtin) — to the user line that made the call, by running attribution
 * (src/core/attribution) on the profile reweighted to the episodes' time. An episode during which the
 * profiler saw the process barely run is named as such: the machine, not the code, held the loop.
 */
import { attributeProfile, functionLabel, type Attribution } from '../attribution';
import type { SourceProvider } from '../attribution/sources';
import type { CancellationToken } from '../common/cancellation';
import { displayName, displayPosition } from '../profile/hotspots';
import { reweightModel } from '../profile/reweight';
import { isHotpathFrame } from '../profile/selfFrames';
import type { ProfileModel } from '../profile/types';
import type { V8RawSignals } from '../v8/types';

/** One long turn of the loop, as the JSON and the editor show it. */
export interface LongTask {
  /** ms from the start of the profile. */
  startMs: number;
  /** How long the loop was held (wall time). */
  durationMs: number;
  /** CPU the profiler saw on the main thread during it; far below durationMs means the process hardly ran. */
  cpuMs: number;
  /** The function that held it (what most of its samples ran under), and the line. */
  function: string;
  file: string;
  line: number | null;
}

export interface BlockingLine {
  function: string;
  file: string;
  line: number;
  /** CPU time charged to this line inside episodes (self, plus the non-user code called on it). */
  blockedMs: number;
  /** Episodes this line's function held (ran for a large part of: see HELD_SHARE). */
  episodes: number;
  /** Lengths of those episodes (ms, longest first, at most 20): what a hover lists. */
  episodeMs: number[];
  /** The median length of all of them (ms). */
  medianEpisodeMs: number;
}

export interface BlockingAnalysis {
  thresholdMs: number;
  /** Episodes seen (including any the monitor did not keep). */
  episodes: number;
  /** Wall time of the loop held in kept episodes, ms. */
  blockedMs: number;
  /** The longest episodes (≤ maxLongTasks), in time order. */
  longTasks: LongTask[];
  /** User-code lines by blocked time. */
  blockingLines: BlockingLine[];
  /** Episodes for a flame-chart lane: [start, end] µs from the profile's first sample, and the culprit's name. */
  lane: { startUs: Float64Array; endUs: Float64Array; labels: string[] };
  /** The attribution of the blocked time (for the editor's labels). Not in the JSON. */
  attribution?: Attribution;
  model?: ProfileModel;
}

export interface BlockingOptions {
  thresholdMs: number;
  /** Total episodes seen by the monitor (≥ episodes.length / 2). */
  episodeCount?: number;
  v8?: V8RawSignals;
  sourceMapUrls?: Record<string, string>;
  sources?: SourceProvider;
  maxLongTasks?: number;
  maxLines?: number;
  token?: CancellationToken;
}

/** A sample whose stack shows the process running below this share of an episode: it was off the CPU. */
const OFF_CPU_SHARE = 0.25;
/**
 * A function "held" an episode when, in that one turn, it (its own code and the non-user code it called)
 * ran for at least this share of the turn and at least half the threshold. A long turn that served many
 * short requests spreads over many functions, none of which blocked the loop by itself: their lines get
 * no "blocked the loop" label (the episode is still counted and listed with its culprit). Of a function
 * that held turns, the lines labelled are those with at least this share of its heaviest line's time in
 * them: a line that only finished the work (a few samples per turn) did not hold them.
 */
const HELD_SHARE = 0.25;
const NOT_RUNNING = '(the process hardly ran: no CPU for most of this turn)';

const paintable = (file: string) => file.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(file);

/**
 * `episodes`: [startUs, endUs] pairs on the profile's clock (µs), sorted by start. The profile is the
 * main thread's model of the same window.
 */
export async function analyzeBlocking(model: ProfileModel, episodes: readonly number[], options: BlockingOptions): Promise<BlockingAnalysis> {
  const E = Math.floor(episodes.length / 2);
  const { nodes, functions } = model;
  const F = functions.length;
  const maxLongTasks = options.maxLongTasks ?? 50;
  const empty: BlockingAnalysis = {
    thresholdMs: options.thresholdMs, episodes: options.episodeCount ?? E, blockedMs: 0, longTasks: [], blockingLines: [],
    lane: { startUs: new Float64Array(0), endUs: new Float64Array(0), labels: [] },
  };
  if (E === 0 || model.sampleCount === 0) return empty;

  // Which nodes are Hotpath's own (the monitor's tick): never charged.
  const own = new Uint8Array(model.nodeCount);
  for (let k = 0; k < model.nodeCount; k++) {
    const v = nodes.preorder[k];
    const p = nodes.parent[v];
    const info = functions[nodes.func[v]];
    if ((p >= 0 && own[p]) || isHotpathFrame(info.name, info.url)) own[v] = 1;
  }
  // The nearest user frame above each node (itself included), else -1.
  const nearestUser = new Int32Array(model.nodeCount).fill(-1);
  for (let k = 0; k < model.nodeCount; k++) {
    const v = nodes.preorder[k];
    const p = nodes.parent[v];
    nearestUser[v] = functions[nodes.func[v]].category === 'user' ? v : p >= 0 ? nearestUser[p] : -1;
  }

  // Sample i arrives at t_i and lasts until the next one (the model's convention).
  const weight = new Float64Array(model.nodeCount);
  const cpuUs = new Float64Array(E);
  /** Per episode: µs charged per model function (the nearest user frame, else the sampled frame). */
  const charged: Map<number, number>[] = Array.from({ length: E }, () => new Map());
  const { samples, timeDeltas } = model;
  let t = model.startTime;
  let e = 0;
  const count = samples.length;
  for (let i = 0; i < count && e < E; i++) {
    t += timeDeltas[i];
    const d = i + 1 < count ? timeDeltas[i + 1] : model.endTime - t;
    while (e < E && t >= episodes[2 * e + 1]) e++;
    if (e >= E || t < episodes[2 * e] || d <= 0) continue;
    const v = samples[i];
    const info = functions[nodes.func[v]];
    if (info.category === 'idle' || own[v]) continue;
    weight[v] += d;
    cpuUs[e] += d;
    const u = nearestUser[v];
    const f = u >= 0 ? nodes.func[u] : nodes.func[v];
    charged[e].set(f, (charged[e].get(f) ?? 0) + d);
  }

  const part = reweightModel(model, weight, `${model.source} (blocking episodes)`);
  const attribution = await attributeProfile(part, { v8: options.v8, sourceMapUrls: options.sourceMapUrls, sources: options.sources, token: options.token, minShare: 0.005 });

  // Per episode: its culprit function (most charged time) and which functions ran in it.
  const culprit = new Int32Array(E).fill(-1);
  /** Per function: the episodes it held (see HELD_SHARE). */
  const episodesOf = new Map<number, number[]>();
  const heldUs = options.thresholdMs * 500; // half the threshold, in µs
  for (let k = 0; k < E; k++) {
    let best = -1;
    let bestUs = 0;
    const wall = episodes[2 * k + 1] - episodes[2 * k];
    for (const [f, us] of charged[k]) {
      if (us > bestUs) { best = f; bestUs = us; }
      if (us < heldUs || us < wall * HELD_SHARE) continue;
      let list = episodesOf.get(f);
      if (!list) episodesOf.set(f, (list = []));
      list.push(k);
    }
    culprit[k] = cpuUs[k] >= wall * OFF_CPU_SHARE ? best : -1;
  }

  // Lines: user code (what the user can change), by own blocked time (self + non-user code called there).
  const maxLines = options.maxLines ?? 20;
  const lineRows = attribution.lines
    .filter((l) => l.ownUs > 0 && l.fn >= 0 && attribution.functions[l.fn]?.category === 'user' && paintable(l.file))
    .sort((a, b) => b.ownUs - a.ownUs);
  const wallMs = (k: number) => (episodes[2 * k + 1] - episodes[2 * k]) / 1000;
  const blockingLines: BlockingLine[] = [];
  /** Per attributed function: its heaviest line's own blocked time (lineRows is sorted, so the first seen). */
  const heaviestOf = new Map<number, number>();
  for (const l of lineRows) {
    if (blockingLines.length >= maxLines) break;
    if (!heaviestOf.has(l.fn)) heaviestOf.set(l.fn, l.ownUs);
    // The label names the function's long turns, so only the lines that did the work in them carry it:
    // `return key.toString('hex')` after a 40 ms pbkdf2Sync had a few samples in those turns and was
    // labelled "blocked the loop: 42 turns, up to 201 ms" beside the line that held them.
    if (l.ownUs < heaviestOf.get(l.fn)! * HELD_SHARE) continue;
    const fs = [l.fn, ...(l.inlinedInto !== undefined ? [l.inlinedInto] : [])].map((g) => attribution.functions[g]?.model ?? -1).filter((g) => g >= 0 && g < F);
    const ks = new Set<number>();
    for (const g of fs) for (const k of episodesOf.get(g) ?? []) ks.add(k);
    if (ks.size === 0) continue; // its function ran in long turns but held none of them
    const lengths = [...ks].map(wallMs).sort((a, b) => b - a);
    const mid = lengths.length % 2 ? lengths[(lengths.length - 1) / 2] : (lengths[lengths.length / 2 - 1] + lengths[lengths.length / 2]) / 2;
    blockingLines.push({ function: functionLabel(attribution.functions[l.fn]), file: l.file, line: l.line, blockedMs: round(l.ownUs / 1000), episodes: ks.size, episodeMs: lengths.slice(0, 20).map(round), medianEpisodeMs: round(mid) });
  }

  // The culprit line of an episode: its function's heaviest blocking line, else the function itself.
  const bestLineOf = new Map<number, { file: string; line: number }>();
  for (const l of lineRows) {
    const g = attribution.functions[l.fn]?.model ?? -1;
    if (g >= 0 && !bestLineOf.has(g)) bestLineOf.set(g, { file: l.file, line: l.line });
  }
  const describe = (k: number): Pick<LongTask, 'function' | 'file' | 'line'> => {
    const f = culprit[k];
    if (f < 0) return { function: NOT_RUNNING, file: '', line: null };
    const info = functions[f];
    const at = bestLineOf.get(f);
    const pos = displayPosition(info);
    return { function: displayName(info), file: at?.file ?? pos.file, line: at?.line ?? pos.line };
  };
  const origin = model.startTime + (timeDeltas.length ? timeDeltas[0] : 0);
  const order = Array.from({ length: E }, (_, k) => k).sort((a, b) => wallMs(b) - wallMs(a)).slice(0, maxLongTasks).sort((a, b) => a - b);
  const longTasks: LongTask[] = order.map((k) => ({
    startMs: round((episodes[2 * k] - model.startTime) / 1000), durationMs: round(wallMs(k)), cpuMs: round(cpuUs[k] / 1000), ...describe(k),
  }));
  let blockedUs = 0;
  for (let k = 0; k < E; k++) blockedUs += episodes[2 * k + 1] - episodes[2 * k];
  const lane = { startUs: new Float64Array(E), endUs: new Float64Array(E), labels: [] as string[] };
  for (let k = 0; k < E; k++) {
    lane.startUs[k] = Math.max(0, episodes[2 * k] - origin);
    lane.endUs[k] = Math.max(0, episodes[2 * k + 1] - origin);
    const d = describe(k);
    lane.labels.push(d.line !== null && d.file ? `${d.function} (${d.file.split(/[\\/]/).pop()}:${d.line})` : d.function);
  }
  return {
    thresholdMs: options.thresholdMs, episodes: Math.max(options.episodeCount ?? E, E), blockedMs: round(blockedUs / 1000),
    longTasks, blockingLines, lane, attribution, model: part,
  };
}

const round = (x: number) => Math.round(x * 100) / 100;
