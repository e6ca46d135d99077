/**
 * The one pass over the call tree (depth-first, parents first) that turns placements and call sites
 * into time: self time on the line whose code ran, inclusive time on every call-site line on the stack
 * (a line already on the stack is not counted again: recursion), own cost per user function, package
 * totals, and who a non-user frame's time belongs to. Synchronous and typed: it runs once per node.
 */
import type { ProfileModel } from '../profile/types';
import type { CallPairs } from './pairs';

export const USER = 1;
export const NON_USER = 2;

export interface PassInput {
  model: ProfileModel;
  /** Per attribution function: USER, NON_USER (dependency, Node, native) or 0 (GC, idle, program, root). */
  kind: Uint8Array;
  /** Per attribution function: 1 for native code (V8 builtins, C++). */
  native: Uint8Array;
  /** Per model function: package index, or -1. */
  pkgOf: Int32Array;
  packageCount: number;
  /** Per model function: 1 when its user caller or async origin is worth naming (hot enough). */
  hot: Uint8Array;
  pairs: CallPairs;
  /** Per pair: the call-site line ids (second: the line the call was reached through), -1 when none. */
  pairSite: Int32Array;
  pairVia: Int32Array;
  /** Per pair: 1 when its call site was looked up and not placed on one line. */
  pairUnplaced: Uint8Array;
  /** Per model line entry: where its ticks went (see attribute.ts), -1 when unknown or none. */
  entryFn: Int32Array;
  entryLine: Int32Array;
  entryInlineSite: Int32Array;
  entryInlineVia: Int32Array;
  entryTotalLine: Int32Array;
  lineCount: number;
}

/** (a, b, µs) triples collected during the pass, aggregated afterwards (no Map per line or function). */
export class Triples {
  a: number[] = [];
  b: number[] = [];
  us: number[] = [];
  push(a: number, b: number, us: number): void {
    this.a.push(a);
    this.b.push(b);
    this.us.push(us);
  }
  /** Sums per (a, b), grouped by a. */
  grouped(): Map<number, Map<number, number>> {
    const out = new Map<number, Map<number, number>>();
    for (let i = 0; i < this.a.length; i++) {
      let m = out.get(this.a[i]);
      if (!m) out.set(this.a[i], (m = new Map()));
      m.set(this.b[i], (m.get(this.b[i]) ?? 0) + this.us[i]);
    }
    return out;
  }
}

export interface PassResult {
  selfUs: Float64Array;
  totalUs: Float64Array;
  ownUs: Float64Array;
  inlinedUs: Float64Array;
  notPlacedUs: Float64Array;
  lineSelf: Float64Array;
  lineTotal: Float64Array;
  lineOwn: Float64Array;
  /**
   * Who ran on a line: the first function seen on it and its self µs (most lines have one), with
   * (line, function, µs) triples for any other; a 0 µs entry marks the function a call-only line is in.
   */
  lineFirstFn: Int32Array;
  lineFirstUs: Float64Array;
  lineFunctions: Triples;
  /** (line, callee, µs): calls made on a line. */
  lineCalls: Triples;
  /** (line, frame, µs): the frame a line's code ran inlined in. */
  lineInlinedInto: Triples;
  /** (inlinee, frame, µs). */
  inlinedInto: Triples;
  /** Per pair: non-user time under it charged to its user caller's own cost, and the native part. */
  partUs: Float64Array;
  partNativeUs: Float64Array;
  /** (user frame, non-user inlinee, µs): non-user code V8 inlined into a user function. */
  inlinedParts: Triples;
  /** Per pair: time of calls whose site is not on one line. */
  unplacedUs: Float64Array;
  /** (hot non-user function, pair of the user call it ran under, self µs). */
  callerWeights: Triples;
  /** (hot non-user function, (first Node frame + 1) × (F + 1) + outermost package frame + 1, self µs) for stacks without user code. */
  asyncWeights: Triples;
  pkgSelf: Float64Array;
  pkgTotal: Float64Array;
}

export function accumulate(input: PassInput): PassResult {
  const { model, kind, native, pkgOf, hot, pairs, pairSite, pairVia, pairUnplaced, entryFn, entryLine, entryInlineSite, entryInlineVia, entryTotalLine } = input;
  const { nodes, lines } = model;
  const N = model.nodeCount;
  const F = model.functions.length;
  const FN = kind.length;
  const L = input.lineCount;
  const r: PassResult = {
    selfUs: new Float64Array(FN), totalUs: new Float64Array(FN), ownUs: new Float64Array(FN), inlinedUs: new Float64Array(FN),
    notPlacedUs: new Float64Array(F), lineSelf: new Float64Array(L), lineTotal: new Float64Array(L), lineOwn: new Float64Array(L),
    lineFirstFn: new Int32Array(L).fill(-1), lineFirstUs: new Float64Array(L), lineFunctions: new Triples(), lineCalls: new Triples(), lineInlinedInto: new Triples(), inlinedInto: new Triples(),
    partUs: new Float64Array(pairs.count), partNativeUs: new Float64Array(pairs.count), inlinedParts: new Triples(),
    unplacedUs: new Float64Array(pairs.count), callerWeights: new Triples(), asyncWeights: new Triples(),
    pkgSelf: new Float64Array(input.packageCount), pkgTotal: new Float64Array(input.packageCount),
  };
  r.totalUs.set(model.functionTotalUs);

  // Non-user time under each non-user node, stopping at user frames: what a call into it costs the caller.
  const nonUserUnder = new Float64Array(N);
  const nativeUnder = new Float64Array(N);
  for (let k = N - 1; k >= 0; k--) {
    const v = nodes.preorder[k];
    const f = nodes.func[v];
    if (kind[f] !== NON_USER) continue;
    nonUserUnder[v] += nodes.selfUs[v];
    if (native[f]) nativeUnder[v] += nodes.selfUs[v];
    const p = nodes.parent[v];
    if (p >= 0 && kind[nodes.func[p]] === NON_USER) {
      nonUserUnder[p] += nonUserUnder[v];
      nativeUnder[p] += nativeUnder[v];
    }
  }

  const active = new Int32Array(L);
  const pkgActive = new Int32Array(input.packageCount);
  const nearestUser = new Int32Array(N).fill(-1);
  const entryChild = new Int32Array(N).fill(-1);
  const outerPkgFn = new Int32Array(N).fill(-1);
  const firstCoreFn = new Int32Array(N).fill(-1);
  // Path stack: per pushed node, its depth, the (up to two) line ids and the package it activated.
  const stackDepth = new Int32Array(N);
  const stackLineA = new Int32Array(N);
  const stackLineB = new Int32Array(N);
  const stackPkg = new Int32Array(N);
  let top = 0;
  const lineFunctionSeen = new Set<number>();
  const onLine = (id: number, g: number, us: number) => {
    if (r.lineFirstFn[id] < 0) r.lineFirstFn[id] = g;
    if (r.lineFirstFn[id] === g) r.lineFirstUs[id] += us;
    else r.lineFunctions.push(id, g, us);
  };
  const isNode = new Uint8Array(F);
  for (let f = 0; f < F; f++) isNode[f] = model.functions[f].category === 'node' ? 1 : 0;
  const markFunction = (id: number, f: number) => {
    if (r.lineFirstFn[id] === f) return;
    if (r.lineFirstFn[id] < 0) { r.lineFirstFn[id] = f; return; }
    const k = id * FN + f;
    if (!lineFunctionSeen.has(k)) {
      lineFunctionSeen.add(k);
      r.lineFunctions.push(id, f, 0);
    }
  };

  for (let k = 0; k < N; k++) {
    const v = nodes.preorder[k];
    const d = nodes.depth[v];
    while (top > 0 && stackDepth[top - 1] >= d) {
      top--;
      if (stackLineA[top] >= 0) active[stackLineA[top]]--;
      if (stackLineB[top] >= 0) active[stackLineB[top]]--;
      if (stackPkg[top] >= 0) pkgActive[stackPkg[top]]--;
    }
    const f = nodes.func[v];
    const kf = kind[f];
    const isUser = kf === USER;
    const p = nodes.parent[v];
    const pf = p >= 0 ? nodes.func[p] : -1;
    const parentUser = pf >= 0 && kind[pf] === USER;
    nearestUser[v] = isUser ? v : p >= 0 ? nearestUser[p] : -1;
    entryChild[v] = isUser ? -1 : parentUser ? v : p >= 0 ? entryChild[p] : -1;
    const pkgHere = pkgOf[f];
    outerPkgFn[v] = p >= 0 && outerPkgFn[p] >= 0 ? outerPkgFn[p] : pkgHere >= 0 ? f : -1;
    firstCoreFn[v] = p >= 0 && firstCoreFn[p] >= 0 ? firstCoreFn[p] : isNode[f] ? f : -1;
    const totalV = nodes.totalUs[v];

    // Inclusive time of this call on the caller's call-site line(s).
    let lineA = -1;
    let lineB = -1;
    if (parentUser) {
      const pair = pairs.nodePair[v];
      const site = pairSite[pair];
      if (site >= 0) {
        for (let j = 0; j < 2; j++) {
          const id = j === 0 ? site : pairVia[pair];
          if (id < 0 || (j === 1 && id === site)) continue;
          markFunction(id, pf);
          if (active[id] === 0) {
            r.lineTotal[id] += totalV;
            r.lineCalls.push(id, f, totalV);
            if (kf === NON_USER) r.lineOwn[id] += nonUserUnder[v];
          }
          if (j === 0) lineA = id;
          else lineB = id;
        }
      } else if (pairUnplaced[pair]) {
        r.unplacedUs[pair] += totalV;
      }
    }
    // Active from here on: this node's own ticks on its call-site line are already in that line's total.
    if (lineA >= 0) active[lineA]++;
    if (lineB >= 0) active[lineB]++;

    // Self time, line by line, where the code ran.
    let covered = 0;
    let userPlacedHere = 0;
    for (let rec = lines.nodeStart[v]; rec < lines.nodeStart[v + 1]; rec++) {
      const e = lines.nodeEntry[rec];
      const us = lines.nodeUs[rec];
      covered += us;
      const placedIn = entryFn[e];
      const g = placedIn >= 0 ? placedIn : f;
      r.selfUs[g] += us;
      const kg = kind[g];
      if (g !== f) {
        r.inlinedUs[g] += us;
        if (g >= F || !hasAncestor(model, v, g)) r.totalUs[g] += us;
        r.inlinedInto.push(g, f, us);
      }
      const id = entryLine[e];
      if (id >= 0) {
        r.lineSelf[id] += us;
        r.lineOwn[id] += us;
        onLine(id, g, us);
        if (g !== f) r.lineInlinedInto.push(id, f, us);
        if (active[id] === 0) r.lineTotal[id] += us;
      } else if (placedIn >= 0) {
        r.notPlacedUs[f] += us;
        const under = entryTotalLine[e];
        if (under >= 0) {
          markFunction(under, f);
          if (active[under] === 0) r.lineTotal[under] += us;
        }
      }
      // The inlined callee's call site (and, when another inlinee made that call, that inlinee's call site).
      const siteA = entryInlineSite[e];
      if (siteA >= 0) {
        for (let j = 0; j < 2; j++) {
          const site = j === 0 ? siteA : entryInlineVia[e];
          if (site < 0 || site === id) continue;
          markFunction(site, f);
          if (active[site] !== 0) continue;
          r.lineTotal[site] += us;
          r.lineCalls.push(site, g, us);
          if (kg === NON_USER) r.lineOwn[site] += us;
        }
      }
      // Own cost: user code is its own; non-user code inlined into a user frame is that frame's.
      if (kg === USER) {
        r.ownUs[g] += us;
        if (!isUser) userPlacedHere += us;
      } else if (isUser) {
        r.ownUs[f] += us;
        if (g !== f) r.inlinedParts.push(f, g, us);
      }
    }
    const remainder = nodes.selfUs[v] - covered;
    if (remainder > 0) {
      r.selfUs[f] += remainder;
      if (isUser) r.ownUs[f] += remainder;
    }

    if (kf === NON_USER) {
      const u = nearestUser[v];
      const selfV = nodes.selfUs[v];
      const nonUserSelf = selfV - userPlacedHere;
      if (u >= 0) {
        r.ownUs[nodes.func[u]] += nonUserSelf;
        const pair = pairs.nodePair[entryChild[v]];
        r.partUs[pair] += nonUserSelf;
        if (native[f]) r.partNativeUs[pair] += nonUserSelf;
      }
      if (hot[f] && selfV > 0) {
        if (u >= 0) r.callerWeights.push(f, pairs.nodePair[entryChild[v]], selfV);
        else r.asyncWeights.push(f, (firstCoreFn[v] + 1) * (F + 1) + (outerPkgFn[v] + 1), selfV);
      }
    }

    let pkg = -1;
    if (pkgHere >= 0) {
      r.pkgSelf[pkgHere] += nodes.selfUs[v];
      if (pkgActive[pkgHere] === 0) {
        r.pkgTotal[pkgHere] += totalV;
        pkg = pkgHere;
      }
    }
    if (lineA >= 0 || lineB >= 0 || pkg >= 0) {
      stackDepth[top] = d;
      stackLineA[top] = lineA;
      stackLineB[top] = lineB;
      stackPkg[top] = pkg;
      top++;
      if (pkg >= 0) pkgActive[pkg]++;
    }
  }
  // Own cost is a user function's notion; for everything else it is its self time.
  for (let g = 0; g < FN; g++) if (kind[g] !== USER) r.ownUs[g] = r.selfUs[g];
  return r;
}

/** True when a frame of model function `g` is an ancestor of node v (its inlined ticks are then already in its total). */
function hasAncestor(model: ProfileModel, v: number, g: number): boolean {
  for (let a = model.nodes.parent[v]; a >= 0; a = model.nodes.parent[a]) if (model.nodes.func[a] === g) return true;
  return false;
}
