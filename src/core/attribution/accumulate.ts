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
  /** Per node: the call-site line id the profile records for it (profileCallSites.ts), -1 when none; null for a .cpuprofile. */
  nodeSite: Int32Array | null;
  /** Per model line entry: where its ticks went (see attribute.ts), -1 when unknown or none. */
  entryFn: Int32Array;
  entryLine: Int32Array;
  entryInlineSite: Int32Array;
  entryInlineVia: Int32Array;
  entryTotalLine: Int32Array;
  lineCount: number;
  /** Per model function: the inlined callee its self time without line ticks goes to (allocation profiles), -1 none; may be empty. */
  frameInlinee?: Int32Array;
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
  return new Pass(input).run();
}

/**
 * The pass as small methods over typed arrays: it runs once per report, so V8 compiles it while it runs
 * (on-stack replacement), and one large function cost more to compile (up to 180 ms of TurboFan on a
 * 50 MB profile, deopting as each loop met its first data) than the pass itself.
 */
class Pass {
  private readonly r: PassResult;
  private readonly N: number;
  private readonly F: number;
  private readonly FN: number;
  /** Non-user time under each non-user node, stopping at user frames: what a call into it costs the caller. */
  private readonly nonUserUnder: Float64Array;
  private readonly nativeUnder: Float64Array;
  /** Call-site lines (by id) and packages on the current path, so recursion is counted once. */
  private readonly active: Int32Array;
  private readonly pkgActive: Int32Array;
  private readonly nearestUser: Int32Array;
  private readonly entryChild: Int32Array;
  private readonly outerPkgFn: Int32Array;
  private readonly firstCoreFn: Int32Array;
  private readonly isNode: Uint8Array;
  // Path stack: per pushed node, its depth, the (up to two) line ids and the package it activated.
  private readonly stackDepth: Int32Array;
  private readonly stackLineA: Int32Array;
  private readonly stackLineB: Int32Array;
  private readonly stackPkg: Int32Array;
  private top = 0;
  private readonly lineFunctionSeen = new Set<number>();
  // Set by callSiteTime for the node being visited.
  private lineA = -1;
  private lineB = -1;

  constructor(private readonly input: PassInput) {
    const { model, kind, pairs } = input;
    const L = input.lineCount;
    this.N = model.nodeCount;
    this.F = model.functions.length;
    this.FN = kind.length;
    const FN = this.FN;
    const F = this.F;
    const N = this.N;
    this.r = {
      selfUs: new Float64Array(FN), totalUs: new Float64Array(FN), ownUs: new Float64Array(FN), inlinedUs: new Float64Array(FN),
      notPlacedUs: new Float64Array(F), lineSelf: new Float64Array(L), lineTotal: new Float64Array(L), lineOwn: new Float64Array(L),
      lineFirstFn: new Int32Array(L).fill(-1), lineFirstUs: new Float64Array(L), lineFunctions: new Triples(), lineCalls: new Triples(), lineInlinedInto: new Triples(), inlinedInto: new Triples(),
      partUs: new Float64Array(pairs.count), partNativeUs: new Float64Array(pairs.count), inlinedParts: new Triples(),
      unplacedUs: new Float64Array(pairs.count), callerWeights: new Triples(), asyncWeights: new Triples(),
      pkgSelf: new Float64Array(input.packageCount), pkgTotal: new Float64Array(input.packageCount),
    };
    this.r.totalUs.set(model.functionTotalUs);
    this.nonUserUnder = new Float64Array(N);
    this.nativeUnder = new Float64Array(N);
    this.active = new Int32Array(L);
    this.pkgActive = new Int32Array(input.packageCount);
    this.nearestUser = new Int32Array(N).fill(-1);
    this.entryChild = new Int32Array(N).fill(-1);
    this.outerPkgFn = new Int32Array(N).fill(-1);
    this.firstCoreFn = new Int32Array(N).fill(-1);
    this.stackDepth = new Int32Array(N);
    this.stackLineA = new Int32Array(N);
    this.stackLineB = new Int32Array(N);
    this.stackPkg = new Int32Array(N);
    this.isNode = new Uint8Array(F);
    for (let f = 0; f < F; f++) this.isNode[f] = model.functions[f].category === 'node' ? 1 : 0;
  }

  run(): PassResult {
    this.sumNonUserUnder();
    const { preorder, depth } = this.input.model.nodes;
    for (let k = 0; k < this.N; k++) {
      const v = preorder[k];
      this.unwindTo(depth[v]);
      this.visit(v);
    }
    // Own cost is a user function's notion; for everything else it is its self time.
    const { kind } = this.input;
    for (let g = 0; g < this.FN; g++) if (kind[g] !== USER) this.r.ownUs[g] = this.r.selfUs[g];
    return this.r;
  }

  private sumNonUserUnder(): void {
    const { nodes } = this.input.model;
    const { kind, native } = this.input;
    const under = this.nonUserUnder;
    const nativeUnder = this.nativeUnder;
    for (let k = this.N - 1; k >= 0; k--) {
      const v = nodes.preorder[k];
      const f = nodes.func[v];
      if (kind[f] !== NON_USER) continue;
      under[v] += nodes.selfUs[v];
      if (native[f]) nativeUnder[v] += nodes.selfUs[v];
      const p = nodes.parent[v];
      if (p >= 0 && kind[nodes.func[p]] === NON_USER) {
        under[p] += under[v];
        nativeUnder[p] += nativeUnder[v];
      }
    }
  }

  /** Pops the path stack down to the parent of a node at depth d. */
  private unwindTo(d: number): void {
    while (this.top > 0 && this.stackDepth[this.top - 1] >= d) {
      const top = --this.top;
      if (this.stackLineA[top] >= 0) this.active[this.stackLineA[top]]--;
      if (this.stackLineB[top] >= 0) this.active[this.stackLineB[top]]--;
      if (this.stackPkg[top] >= 0) this.pkgActive[this.stackPkg[top]]--;
    }
  }

  private visit(v: number): void {
    const { nodes } = this.input.model;
    const { kind, pkgOf } = this.input;
    const d = nodes.depth[v];
    const f = nodes.func[v];
    const isUser = kind[f] === USER;
    const p = nodes.parent[v];
    const pf = p >= 0 ? nodes.func[p] : -1;
    const parentUser = pf >= 0 && kind[pf] === USER;
    this.nearestUser[v] = isUser ? v : p >= 0 ? this.nearestUser[p] : -1;
    this.entryChild[v] = isUser ? -1 : parentUser ? v : p >= 0 ? this.entryChild[p] : -1;
    const pkgHere = pkgOf[f];
    this.outerPkgFn[v] = p >= 0 && this.outerPkgFn[p] >= 0 ? this.outerPkgFn[p] : pkgHere >= 0 ? f : -1;
    this.firstCoreFn[v] = p >= 0 && this.firstCoreFn[p] >= 0 ? this.firstCoreFn[p] : this.isNode[f] ? f : -1;

    this.lineA = -1;
    this.lineB = -1;
    if (parentUser) this.callSiteTime(v, f, pf);
    const lineA = this.lineA;
    const lineB = this.lineB;
    // Active from here on: this node's own ticks on its call-site line are already in that line's total.
    if (lineA >= 0) this.active[lineA]++;
    if (lineB >= 0) this.active[lineB]++;

    const userPlacedHere = this.selfTime(v, f, isUser);
    if (kind[f] === NON_USER) this.nonUserOwner(v, f, userPlacedHere);
    const pkg = pkgHere >= 0 ? this.packageTime(v, pkgHere) : -1;
    if (lineA >= 0 || lineB >= 0 || pkg >= 0) {
      const top = this.top++;
      this.stackDepth[top] = d;
      this.stackLineA[top] = lineA;
      this.stackLineB[top] = lineB;
      this.stackPkg[top] = pkg;
      if (pkg >= 0) this.pkgActive[pkg]++;
    }
  }

  /** Inclusive time of this call on the caller's call-site line(s); sets lineA/lineB. */
  private callSiteTime(v: number, f: number, pf: number): void {
    const { pairs, pairSite, pairVia, pairUnplaced, kind } = this.input;
    const r = this.r;
    const totalV = this.input.model.nodes.totalUs[v];
    const pair = pairs.nodePair[v];
    const recorded = this.input.nodeSite !== null ? this.input.nodeSite[v] : -1;
    const site = recorded >= 0 ? recorded : pairSite[pair];
    if (site < 0) {
      if (pairUnplaced[pair]) r.unplacedUs[pair] += totalV;
      return;
    }
    for (let j = 0; j < 2; j++) {
      const id = j === 0 ? site : recorded >= 0 ? -1 : pairVia[pair];
      if (id < 0 || (j === 1 && id === site)) continue;
      this.markFunction(id, pf);
      if (this.active[id] === 0) {
        r.lineTotal[id] += totalV;
        r.lineCalls.push(id, f, totalV);
        if (kind[f] === NON_USER) r.lineOwn[id] += this.nonUserUnder[v];
      }
      if (j === 0) this.lineA = id;
      else this.lineB = id;
    }
  }

  /** Self time, line by line, where the code ran; returns the part placed in user code (inlined). */
  private selfTime(v: number, f: number, isUser: boolean): number {
    const { model, kind, entryFn, entryLine, entryTotalLine } = this.input;
    const { lines, nodes } = model;
    const r = this.r;
    let covered = 0;
    let userPlacedHere = 0;
    const end = lines.nodeStart[v + 1];
    for (let rec = lines.nodeStart[v]; rec < end; rec++) {
      const e = lines.nodeEntry[rec];
      const us = lines.nodeUs[rec];
      covered += us;
      const placedIn = entryFn[e];
      const g = placedIn >= 0 ? placedIn : f;
      r.selfUs[g] += us;
      if (g !== f) this.inlined(v, f, g, us);
      const id = entryLine[e];
      if (id >= 0) {
        r.lineSelf[id] += us;
        r.lineOwn[id] += us;
        this.onLine(id, g, us);
        if (g !== f) r.lineInlinedInto.push(id, f, us);
        if (this.active[id] === 0) r.lineTotal[id] += us;
      } else if (placedIn >= 0) {
        r.notPlacedUs[f] += us;
        const under = entryTotalLine[e];
        if (under >= 0) {
          this.markFunction(under, f);
          if (this.active[under] === 0) r.lineTotal[under] += us;
        }
      }
      if (this.input.entryInlineSite[e] >= 0) this.inlineCallSites(e, id, f, g, us);
      // Own cost: user code is its own; non-user code inlined into a user frame is that frame's.
      if (kind[g] === USER) {
        r.ownUs[g] += us;
        if (!isUser) userPlacedHere += us;
      } else if (isUser) {
        r.ownUs[f] += us;
        if (g !== f) r.inlinedParts.push(f, g, us);
      }
    }
    const remainder = nodes.selfUs[v] - covered;
    const g = this.input.frameInlinee?.[f] ?? -1;
    if (remainder > 0 && g >= 0 && g !== f) {
      // An allocation profile's frame whose bytes are an inlined callee's (allocationPlacement.ts).
      r.selfUs[g] += remainder;
      this.inlined(v, f, g, remainder);
      if (kind[g] === USER) {
        r.ownUs[g] += remainder;
        if (!isUser) userPlacedHere += remainder;
      } else if (isUser) {
        r.ownUs[f] += remainder;
        r.inlinedParts.push(f, g, remainder);
      }
    } else if (remainder > 0) {
      r.selfUs[f] += remainder;
      if (isUser) r.ownUs[f] += remainder;
    }
    return userPlacedHere;
  }

  /** Ticks of frame f's node v that ran code of g, inlined. */
  private inlined(v: number, f: number, g: number, us: number): void {
    const r = this.r;
    r.inlinedUs[g] += us;
    if (g >= this.F || !hasAncestor(this.input.model, v, g)) r.totalUs[g] += us;
    r.inlinedInto.push(g, f, us);
  }

  /** The inlined callee's call site (and, when another inlinee made that call, that inlinee's call site). */
  private inlineCallSites(e: number, id: number, f: number, g: number, us: number): void {
    const { entryInlineSite, entryInlineVia, kind } = this.input;
    const r = this.r;
    for (let j = 0; j < 2; j++) {
      const site = j === 0 ? entryInlineSite[e] : entryInlineVia[e];
      if (site < 0 || site === id) continue;
      this.markFunction(site, f);
      if (this.active[site] !== 0) continue;
      r.lineTotal[site] += us;
      r.lineCalls.push(site, g, us);
      if (kind[g] === NON_USER) r.lineOwn[site] += us;
    }
  }

  /** A non-user node's self time: its nearest user caller's own cost, and who it is charged to. */
  private nonUserOwner(v: number, f: number, userPlacedHere: number): void {
    const { model, native, hot, pairs } = this.input;
    const { nodes } = model;
    const r = this.r;
    const u = this.nearestUser[v];
    const selfV = nodes.selfUs[v];
    const nonUserSelf = selfV - userPlacedHere;
    if (u >= 0) {
      r.ownUs[nodes.func[u]] += nonUserSelf;
      const pair = pairs.nodePair[this.entryChild[v]];
      r.partUs[pair] += nonUserSelf;
      if (native[f]) r.partNativeUs[pair] += nonUserSelf;
    }
    if (hot[f] && selfV > 0) {
      if (u >= 0) r.callerWeights.push(f, pairs.nodePair[this.entryChild[v]], selfV);
      else r.asyncWeights.push(f, (this.firstCoreFn[v] + 1) * (this.F + 1) + (this.outerPkgFn[v] + 1), selfV);
    }
  }

  /** Package self and inclusive time (inclusive once per path); returns the package it activated, or -1. */
  private packageTime(v: number, pkg: number): number {
    const { nodes } = this.input.model;
    this.r.pkgSelf[pkg] += nodes.selfUs[v];
    if (this.pkgActive[pkg] !== 0) return -1;
    this.r.pkgTotal[pkg] += nodes.totalUs[v];
    return pkg;
  }

  private onLine(id: number, g: number, us: number): void {
    const r = this.r;
    if (r.lineFirstFn[id] < 0) r.lineFirstFn[id] = g;
    if (r.lineFirstFn[id] === g) r.lineFirstUs[id] += us;
    else r.lineFunctions.push(id, g, us);
  }

  private markFunction(id: number, f: number): void {
    const r = this.r;
    if (r.lineFirstFn[id] === f) return;
    if (r.lineFirstFn[id] < 0) { r.lineFirstFn[id] = f; return; }
    const k = id * this.FN + f;
    if (!this.lineFunctionSeen.has(k)) {
      this.lineFunctionSeen.add(k);
      r.lineFunctions.push(id, f, 0);
    }
  }
}

/** True when a frame of model function `g` is an ancestor of node v (its inlined ticks are then already in its total). */
function hasAncestor(model: ProfileModel, v: number, g: number): boolean {
  for (let a = model.nodes.parent[v]; a >= 0; a = model.nodes.parent[a]) if (model.nodes.func[a] === g) return true;
  return false;
}
