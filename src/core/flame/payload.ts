/**
 * ProfileModel → FlamePayload: everything the flamegraph front end draws, nothing it does not (no
 * samples, no per-node ids, no line table). A few MB even for profiles of hundreds of MB.
 */
import * as path from 'node:path';
import { displayName, displayPosition } from '../profile/hotspots';
import type { ProfileModel } from '../profile/types';
import { CategoryCode } from '../../shared/flame/categories';
import { FLAME_PAYLOAD_VERSION, type FlameDiff, type FlamePayload, type FlameProfileMeta, type FunctionTable } from '../../shared/flame/payload';
import { functionIdentities, identitiesOf, inferProjectRoot, matchFunctions, type FunctionIdentity } from '../profileDiff/identity';
import type { FunctionInfo } from '../profile/types';
import { aggregate, type Aggregated } from './aggregate';
import { beforeSelfTimes } from './diff';
import { inlineSplit, type InlineSource, type InlineSplit } from './inlined';
import { buildTimeline, DEFAULT_MAX_RUNS } from './timeline';

export interface FlameOptions {
  /** Title shown in the page; defaults to the profile's file name. */
  title?: string;
  /** Bound on the flame chart's runs (default 100 000); 0 leaves the flame chart out. */
  maxTimelineRuns?: number;
  /**
   * The profile's attribution (the one the editor shows): code V8 inlined is drawn as frames of the
   * inlined callee (marked inlined) where attribution placed its ticks. Absent: frames as V8 charged them.
   */
  attribution?: InlineSource;
}

class Strings {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  of(s: string | null | undefined): number {
    if (s === null || s === undefined) return -1;
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.list.length;
      this.index.set(s, i);
      this.list.push(s);
    }
    return i;
  }
}

/** The model's functions, then (with inlined frames) the split's added ones: functions known only inlined, and the twins. */
function functionTable(model: ProfileModel, strings: Strings, split?: InlineSplit): FunctionTable {
  const all: readonly FunctionInfo[] = split ? [...model.functions, ...split.added] : model.functions;
  const n = all.length;
  const t: FunctionTable = {
    count: n, name: new Int32Array(n), file: new Int32Array(n), line: new Int32Array(n), column: new Int32Array(n),
    category: new Uint8Array(n), pkg: new Int32Array(n), mapped: new Uint8Array(n),
  };
  all.forEach((info, f) => {
    const pos = displayPosition(info);
    t.name[f] = strings.of(displayName(info));
    t.file[f] = strings.of(pos.file);
    t.line[f] = pos.line ?? 0;
    t.column[f] = pos.column ?? 0;
    t.category[f] = CategoryCode[info.category];
    t.pkg[f] = strings.of(info.package);
    t.mapped[f] = info.originalFile !== undefined ? 1 : 0;
  });
  if (split) {
    const F = model.functions.length;
    t.inlinedOf = new Int32Array(n).fill(-1);
    t.inlinedOf.set(split.inlinedOf, F);
    const inlined = new Uint8Array(n);
    inlined.set(split.how, F);
    t.extras = { ...(t.extras ?? {}), inlined };
  }
  return t;
}

function metaOf(model: ProfileModel, title?: string): FlameProfileMeta {
  return {
    title: title ?? (path.basename(model.source) || 'profile'),
    source: model.source,
    thread: model.thread,
    durationUs: model.durationUs,
    sampleCount: model.sampleCount,
    nodeCount: model.nodeCount,
    warnings: model.warnings.map((w) => w.message),
    // A heap profile from pprof holds bytes or object counts, not time.
    ...(model.origin && model.origin.unit !== 'us' ? { unit: model.origin.unit } : {}),
  };
}

export function buildFlamePayload(model: ProfileModel, options: FlameOptions = {}): FlamePayload {
  return buildFlame(model, options).payload;
}

/** @internal The payload, and what per-thread payloads are cut from (flame/threads.ts): the frame tree and each node's frame. */
export function buildFlame(model: ProfileModel, options: FlameOptions = {}): { payload: FlamePayload } & Aggregated {
  const strings = new Strings();
  const split = inlineSplit(model, options.attribution);
  const functions = functionTable(model, strings, split);
  const aggregated = aggregate(model, split);
  const { tree, nodeToFrame } = aggregated;
  const maxRuns = options.maxTimelineRuns ?? DEFAULT_MAX_RUNS;
  const payload: FlamePayload = {
    version: FLAME_PAYLOAD_VERSION,
    meta: metaOf(model, options.title),
    strings: strings.list,
    functions,
    frames: { parent: tree.parent, func: tree.func, selfUs: tree.selfUs },
    timeline: maxRuns > 0 ? buildTimeline(model, nodeToFrame, maxRuns) : undefined,
  };
  return { payload, ...aggregated };
}

/** How to match and label the two sides of a differential payload. */
export interface DiffOptions extends FlameOptions {
  beforeTitle?: string;
  /** Project roots user files are relative to (a worktree and the working tree, say); inferred when absent. */
  beforeRoot?: string;
  afterRoot?: string;
  /** What each side ran (label, Node version, git revision, environment), for the header. */
  sides?: FlameDiff['sides'];
  /** The older profile's attribution: its inlined code split the same way as the newer one's (`attribution`). */
  beforeAttribution?: InlineSource;
}

/**
 * A differential payload: widths (frames) from `after`, plus `before`'s self time per matching call
 * path (functions matched by identity, Node internals transparent; see diff.ts). The flame chart is `after`'s.
 */
export function buildDiffPayload(before: ProfileModel, after: ProfileModel, options: DiffOptions = {}): FlamePayload {
  const payload = buildFlamePayload(after, options);
  const beforeSplit = inlineSplit(before, options.beforeAttribution);
  const beforeTree = aggregate(before, beforeSplit).tree;
  const identA = withInlined(functionIdentities(before, options.beforeRoot), before, beforeSplit, options.beforeRoot);
  const identB = withInlined(functionIdentities(after, options.afterRoot), after, inlineSplit(after, options.attribution), options.afterRoot);
  const match = matchFunctions(identA, identB);
  const transparent = (ids: FunctionIdentity[]) => Uint8Array.from(ids, (i) => (i.transparent ? 1 : 0));
  const afterTree = { count: payload.frames.parent.length, parent: payload.frames.parent, func: payload.frames.func, selfUs: payload.frames.selfUs };
  payload.diff = {
    before: metaOf(before, options.beforeTitle),
    beforeSelfUs: beforeSelfTimes({ tree: beforeTree, funcId: match.idsA, transparent: transparent(identA) }, { tree: afterTree, funcId: match.idsB, transparent: transparent(identB) }),
    ...(options.sides ? { sides: options.sides } : {}),
  };
  return payload;
}

/**
 * Identities of a split's added functions after the model's: functions known only inlined by their own
 * name and place, inlined twins as the function they are a twin of — so a callee V8 inlined on one side
 * and called on the other is the same function on the same call path.
 */
function withInlined(ids: FunctionIdentity[], model: ProfileModel, split: InlineSplit | undefined, root: string | undefined): FunctionIdentity[] {
  if (!split) return ids;
  const own = identitiesOf(split.added, root ?? inferProjectRoot(model));
  const out = [...ids, ...own];
  split.inlinedOf.forEach((of, i) => { if (of >= 0) out[ids.length + i] = out[of]; });
  return out;
}
