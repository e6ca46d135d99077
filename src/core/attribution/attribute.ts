/**
 * attributeProfile: one pass over the call tree that puts every sample's time where the user can act on
 * it — self time on the line whose code ran (inlined callees in their own file), inclusive time on the
 * call-site line of every user frame, own cost per user function (its self time plus the dependency,
 * Node and native code it calls directly), per-package totals, and for dependency code that no user
 * code called synchronously, what started it. Sources are read only for functions and calls that carry
 * at least `minShare` of the profile.
 */
import type { CancellationToken } from '../common/cancellation';
import type { Category, FileReader, ProfileModel } from '../profile/types';
import type { V8RawSignals } from '../v8/types';
import { resolveCallSite, resolveInlineSite } from './callSites';
import { AttributionContext } from './context';
import { placeFrameEntries } from './placement';
import { Scripts, type DisplayPos } from './scripts';
import { diskSources, type SourceProvider } from './sources';
import type { Attribution, AttributedLine, CallSiteResult, NotPlaced, OwnPart, PackageTotal, Placement } from './types';

export interface AttributeOptions {
  /** V8's signals of the run (inlining facts); absent with --no-v8 or for profiles from elsewhere. */
  v8?: V8RawSignals;
  /** Runtime source-map URLs per script URL (the profile's `.sourcemaps.json`). */
  sourceMapUrls?: Record<string, string>;
  sources?: SourceProvider;
  fs?: FileReader;
  /** Functions and calls below this share of the profile are not worth reading sources for (default 0.05%). */
  minShare?: number;
  token?: CancellationToken;
}

/** Categories that are "the code the user called", charged to the nearest user frame's own cost. */
const NON_USER = new Set<Category>(['dependency', 'node', 'native']);

/** Call-site and placement lookups under way at once (they read files). */
const CONCURRENCY = 8;

async function inBatches<T>(items: T[], work: (item: T) => Promise<void>, token?: CancellationToken): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      if (token?.isCancellationRequested) return;
      await work(items[next++]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

/** Line ids for display positions, with the per-line accumulators. */
class LineTable {
  readonly ids = new Map<string, number>();
  readonly pos: DisplayPos[] = [];
  selfUs: number[] = [];
  totalUs: number[] = [];
  ownUs: number[] = [];
  readonly byFunction: Map<number, number>[] = [];
  readonly calls: Map<number, number>[] = [];
  readonly inlinedInto: Map<number, number>[] = [];
  readonly placement: Placement[] = [];

  id(pos: { file: string; line: number; column?: number | null }): number {
    const k = `${pos.file}\n${pos.line}`;
    let id = this.ids.get(k);
    if (id === undefined) {
      id = this.pos.length;
      this.ids.set(k, id);
      this.pos.push({ file: pos.file, line: pos.line, column: pos.column ?? null });
      this.selfUs.push(0);
      this.totalUs.push(0);
      this.ownUs.push(0);
      this.byFunction.push(new Map());
      this.calls.push(new Map());
      this.inlinedInto.push(new Map());
      this.placement.push('own');
    }
    return id;
  }
}

const add = <K>(m: Map<K, number>, k: K, us: number) => m.set(k, (m.get(k) ?? 0) + us);

export async function attributeProfile(model: ProfileModel, options: AttributeOptions = {}): Promise<Attribution> {
  const sources = options.sources ?? diskSources();
  const scripts = new Scripts(model, sources, options.sourceMapUrls, options.fs);
  const v8 = options.v8?.collection.collected ? options.v8 : undefined;
  const ctx = new AttributionContext(model, scripts, v8);
  const minUs = model.durationUs * (options.minShare ?? 0.0005);
  const { nodes, functions, lines } = model;
  const N = model.nodeCount;
  const F = functions.length;
  const categoryOf = (f: number): Category => ctx.functions[f].category;
  const token = options.token;

  // 1. Time per (user caller, callee) pair: which call sites are worth finding.
  const pairUs = new Map<number, number>();
  for (let v = 0; v < N; v++) {
    const p = nodes.parent[v];
    if (p < 0) continue;
    const pf = nodes.func[p];
    if (functions[pf].category !== 'user') continue;
    add(pairUs, pf * F + nodes.func[v], nodes.totalUs[v]);
  }
  const siteOfPair = new Map<number, CallSiteResult>();
  const significantPairs = [...pairUs].filter(([, us]) => us >= minUs).map(([k]) => k);
  await inBatches(significantPairs, async (k) => {
    siteOfPair.set(k, await resolveCallSite(ctx, Math.floor(k / F), k % F));
  }, token);

  // 2. Where each line tick of a significant user or dependency frame belongs.
  const entriesOf = new Map<number, number[]>();
  for (let e = 0; e < lines.count; e++) {
    const f = lines.func[e];
    const c = functions[f].category;
    if ((c === 'user' || c === 'dependency') && model.functionSelfUs[f] >= minUs) {
      const list = entriesOf.get(f);
      if (list) list.push(e);
      else entriesOf.set(f, [e]);
    }
  }
  const table = new LineTable();
  const entryFn = new Int32Array(lines.count).fill(-1);
  const entryLine = new Int32Array(lines.count).fill(-1);
  const entryInlineSite = new Int32Array(lines.count).fill(-1);
  const entryInlineVia = new Int32Array(lines.count).fill(-1);
  const entryTotalLine = new Int32Array(lines.count).fill(-1);
  const entryPlacement: Placement[] = new Array(lines.count);
  const notPlacedReasons = new Map<number, Set<string>>();
  const inlineSites = new Map<string, CallSiteResult>();
  await inBatches([...entriesOf], async ([f, entries]) => {
    const placed = await placeFrameEntries(ctx, f, entries);
    for (const [e, p] of placed) {
      entryFn[e] = p.fn;
      entryPlacement[e] = p.placement;
      if (p.pos) entryLine[e] = table.id(p.pos);
      if (p.totalPos) entryTotalLine[e] = table.id(p.totalPos);
      if (!p.pos && p.reason) {
        let set = notPlacedReasons.get(f);
        if (!set) notPlacedReasons.set(f, (set = new Set()));
        set.add(p.reason);
      }
      if (p.fn !== f) {
        const k = `${f}:${p.fn}`;
        let site = inlineSites.get(k);
        if (!site) inlineSites.set(k, (site = await resolveInlineSite(ctx, f, p.fn)));
        if (site.status === 'placed') {
          entryInlineSite[e] = table.id(site.site);
          if (site.via) entryInlineVia[e] = table.id(site.via);
        }
      }
    }
  }, token);
  const siteLines = new Map<number, number[]>();
  for (const [k, site] of siteOfPair) {
    if (site.status === 'placed') siteLines.set(k, site.via ? [table.id(site.site), table.id(site.via)] : [table.id(site.site)]);
  }

  // 3. The pass: preorder, with the call-site lines and packages on the current path.
  const FN = ctx.functions.length; // frozen: no function is added below
  const selfUs = new Float64Array(FN);
  const totalUs = new Float64Array(FN);
  totalUs.set(model.functionTotalUs);
  const ownUs = new Float64Array(FN);
  const inlinedUs = new Float64Array(FN);
  const parts = new Map<number, Map<number, { us: number; nativeUs: number }>>();
  const notPlacedUs = new Map<number, number>();
  const inlinedInto = new Map<number, Map<number, number>>();
  const unplacedCalls = new Map<number, Map<number, number>>();
  const callerWeights = new Map<number, Map<number, number>>();
  const asyncWeights = new Map<number, Map<string, number>>();
  const pkgIds = new Map<string, number>();
  const pkgSelf: number[] = [];
  const pkgTotal: number[] = [];
  const pkgOf = new Int32Array(F).fill(-1);
  for (let f = 0; f < F; f++) {
    const pkg = functions[f].category === 'dependency' ? functions[f].package : null;
    if (!pkg) continue;
    let id = pkgIds.get(pkg);
    if (id === undefined) {
      id = pkgIds.size;
      pkgIds.set(pkg, id);
      pkgSelf.push(0);
      pkgTotal.push(0);
    }
    pkgOf[f] = id;
  }
  const pkgActive = new Int32Array(pkgIds.size);

  // Non-user time under each non-user node, stopping at user frames: what a call into it costs the caller.
  const nonUserUnder = new Float64Array(N);
  const nativeUnder = new Float64Array(N);
  for (let k = N - 1; k >= 0; k--) {
    const v = nodes.preorder[k];
    const c = categoryOf(nodes.func[v]);
    if (!NON_USER.has(c)) continue;
    nonUserUnder[v] += nodes.selfUs[v];
    if (c === 'native') nativeUnder[v] += nodes.selfUs[v];
    const p = nodes.parent[v];
    if (p >= 0 && NON_USER.has(categoryOf(nodes.func[p]))) {
      nonUserUnder[p] += nonUserUnder[v];
      nativeUnder[p] += nativeUnder[v];
    }
  }

  const active = new Int32Array(table.pos.length);
  const nearestUser = new Int32Array(N).fill(-1);
  const entryChild = new Int32Array(N).fill(-1);
  const outerPkgFn = new Int32Array(N).fill(-1);
  const firstCoreFn = new Int32Array(N).fill(-1);
  // Path stack: per pushed node, the line ids and package it activated.
  const stackDepth: number[] = [];
  const stackLines: number[][] = [];
  const stackPkg: number[] = [];

  const part = (user: number, callee: number, us: number, nativeUs: number) => {
    let m = parts.get(user);
    if (!m) parts.set(user, (m = new Map()));
    const p = m.get(callee);
    if (p) { p.us += us; p.nativeUs += nativeUs; } else m.set(callee, { us, nativeUs });
  };

  for (let k = 0; k < N; k++) {
    const v = nodes.preorder[k];
    const d = nodes.depth[v];
    while (stackDepth.length && stackDepth[stackDepth.length - 1] >= d) {
      stackDepth.pop();
      for (const id of stackLines.pop()!) active[id]--;
      const pkg = stackPkg.pop()!;
      if (pkg >= 0) pkgActive[pkg]--;
    }
    const f = nodes.func[v];
    const c = categoryOf(f);
    const p = nodes.parent[v];
    const pf = p >= 0 ? nodes.func[p] : -1;
    const parentUser = pf >= 0 && categoryOf(pf) === 'user';
    nearestUser[v] = c === 'user' ? v : p >= 0 ? nearestUser[p] : -1;
    entryChild[v] = c === 'user' ? -1 : parentUser ? v : p >= 0 ? entryChild[p] : -1;
    outerPkgFn[v] = p >= 0 && outerPkgFn[p] >= 0 ? outerPkgFn[p] : c === 'dependency' ? f : -1;
    firstCoreFn[v] = p >= 0 && firstCoreFn[p] >= 0 ? firstCoreFn[p] : c === 'node' ? f : -1;
    const pushed: number[] = [];

    // Inclusive time of this call on the caller's call-site line(s).
    if (parentUser) {
      const ids = siteLines.get(pf * F + f);
      if (ids) {
        for (const id of ids) {
          if (!table.byFunction[id].has(pf)) table.byFunction[id].set(pf, 0);
          if (active[id] === 0 && !pushed.includes(id)) {
            table.totalUs[id] += nodes.totalUs[v];
            add(table.calls[id], f, nodes.totalUs[v]);
            if (NON_USER.has(c)) table.ownUs[id] += nonUserUnder[v];
          }
          pushed.push(id);
        }
      } else if (siteOfPair.has(pf * F + f)) {
        let m = unplacedCalls.get(pf);
        if (!m) unplacedCalls.set(pf, (m = new Map()));
        add(m, f, nodes.totalUs[v]);
      }
    }
    // Active from here on: this node's own ticks on its call-site line are already in that line's total.
    for (const id of pushed) active[id]++;

    // Self time, line by line, where the code ran.
    let covered = 0;
    let userPlacedHere = 0;
    for (let r = lines.nodeStart[v]; r < lines.nodeStart[v + 1]; r++) {
      const e = lines.nodeEntry[r];
      const us = lines.nodeUs[r];
      covered += us;
      const g = entryFn[e] >= 0 ? entryFn[e] : f;
      selfUs[g] += us;
      const cg = categoryOf(g);
      if (g !== f) {
        inlinedUs[g] += us;
        if (ctx.functions[g].model < 0 || !isAncestorFunction(model, v, g)) totalUs[g] += us;
        let into = inlinedInto.get(g);
        if (!into) inlinedInto.set(g, (into = new Map()));
        add(into, f, us);
      }
      const id = entryLine[e];
      if (id >= 0) {
        table.selfUs[id] += us;
        add(table.byFunction[id], g, us);
        if (g !== f) add(table.inlinedInto[id], f, us);
        table.placement[id] = entryPlacement[e] === 'own' ? table.placement[id] : entryPlacement[e];
        table.ownUs[id] += us;
        if (active[id] === 0) table.totalUs[id] += us;
      } else if (entryFn[e] >= 0) {
        add(notPlacedUs, f, us);
        const under = entryTotalLine[e];
        if (under >= 0) {
          if (!table.byFunction[under].has(f)) table.byFunction[under].set(f, 0);
          if (active[under] === 0) table.totalUs[under] += us;
        }
      }
      // The inlined callee's call site (and, when another inlinee made that call, that inlinee's call site).
      for (const site of [entryInlineSite[e], entryInlineVia[e]]) {
        if (site < 0 || site === id) continue;
        if (!table.byFunction[site].has(f)) table.byFunction[site].set(f, 0);
        if (active[site] !== 0) continue;
        table.totalUs[site] += us;
        add(table.calls[site], g, us);
        if (NON_USER.has(cg)) table.ownUs[site] += us;
      }
      // Own cost: user code is its own; non-user code inlined into a user frame is that frame's.
      if (cg === 'user') {
        ownUs[g] += us;
        if (c !== 'user') userPlacedHere += us;
      } else if (c === 'user') {
        ownUs[f] += us;
        if (g !== f) part(f, g, us, 0);
      }
    }
    const remainder = nodes.selfUs[v] - covered;
    if (remainder > 0) {
      selfUs[f] += remainder;
      if (c === 'user') ownUs[f] += remainder;
    }

    if (NON_USER.has(c)) {
      const u = nearestUser[v];
      const nonUserSelf = nodes.selfUs[v] - userPlacedHere;
      if (u >= 0) {
        const uf = nodes.func[u];
        ownUs[uf] += nonUserSelf;
        part(uf, nodes.func[entryChild[v]], nonUserSelf, c === 'native' ? nonUserSelf : 0);
      }
      if (model.functionSelfUs[f] >= minUs && nodes.selfUs[v] > 0) {
        if (u >= 0) {
          let m = callerWeights.get(f);
          if (!m) callerWeights.set(f, (m = new Map()));
          add(m, nodes.func[u] * F + nodes.func[entryChild[v]], nodes.selfUs[v]);
        } else {
          let m = asyncWeights.get(f);
          if (!m) asyncWeights.set(f, (m = new Map()));
          add(m, `${firstCoreFn[v]}\n${outerPkgFn[v]}`, nodes.selfUs[v]);
        }
      }
    }

    let pkg = -1;
    if (c === 'dependency' && pkgOf[f] >= 0) {
      pkg = pkgOf[f];
      pkgSelf[pkg] += nodes.selfUs[v];
      if (pkgActive[pkg] === 0) pkgTotal[pkg] += nodes.totalUs[v];
      else pkg = -1; // already counted by an outer frame of the same package
    }
    if (pushed.length || pkg >= 0) {
      stackDepth.push(d);
      stackLines.push(pushed);
      stackPkg.push(pkg);
      if (pkg >= 0) pkgActive[pkg]++;
    }
  }
  // Own cost is a user function's notion; for everything else it is its self time.
  for (let f = 0; f < FN; f++) if (categoryOf(f) !== 'user') ownUs[f] = selfUs[f];

  return finish();

  function finish(): Attribution {
    const ownParts = new Map<number, OwnPart[]>();
    for (const [user, m] of parts) {
      ownParts.set(user, [...m].map(([callee, x]) => ({ callee, us: x.us, ranIn: x.nativeUs * 2 > x.us ? 'native' as Category : categoryOf(callee) })).sort((a, b) => b.us - a.us).slice(0, 8));
    }
    const notPlaced = new Map<number, NotPlaced>();
    for (const [f, us] of notPlacedUs) notPlaced.set(f, { us, reasons: [...(notPlacedReasons.get(f) ?? [])].slice(0, 4) });
    const callSites = new Map<string, CallSiteResult>();
    for (const [k, site] of siteOfPair) callSites.set(`${Math.floor(k / F)}:${k % F}`, site);
    const unplaced = new Map<number, { callee: number; us: number; site: CallSiteResult }[]>();
    for (const [pf, m] of unplacedCalls) {
      unplaced.set(pf, [...m].map(([callee, us]) => ({ callee, us, site: siteOfPair.get(pf * F + callee)! })).filter((x) => x.us >= minUs).sort((a, b) => b.us - a.us));
    }
    const userCallers = new Map<number, { caller: number; site: CallSiteResult; us: number }>();
    for (const [f, m] of callerWeights) {
      let best = -1;
      let bestUs = 0;
      for (const [key, us] of m) if (us > bestUs) { best = key; bestUs = us; }
      if (best < 0) continue;
      const caller = Math.floor(best / F);
      const entry = best % F;
      userCallers.set(f, { caller, site: siteOfPair.get(caller * F + entry) ?? { status: 'not-found' }, us: bestUs });
    }
    const asyncContexts = new Map<number, string>();
    for (const [f, m] of asyncWeights) {
      if (userCallers.has(f)) continue;
      let best = '';
      let bestUs = -1;
      for (const [key, us] of m) if (us > bestUs) { best = key; bestUs = us; }
      const [core, pkgFn] = best.split('\n').map(Number);
      asyncContexts.set(f, describeAsync(model, core, pkgFn));
    }
    const packages: PackageTotal[] = [...pkgIds].map(([pkg, id]) => ({ package: pkg, selfUs: pkgSelf[id], totalUs: pkgTotal[id] })).sort((a, b) => b.totalUs - a.totalUs);

    const out: AttributedLine[] = [];
    table.pos.forEach((pos, id) => {
      if (table.totalUs[id] <= 0 && table.selfUs[id] <= 0) return;
      let fn = -1;
      let best = -1;
      for (const [g, us] of table.byFunction[id]) if (us > best) { fn = g; best = us; }
      let into: number | undefined;
      let intoUs = -1;
      for (const [g, us] of table.inlinedInto[id]) if (us > intoUs) { into = g; intoUs = us; }
      out.push({
        file: pos.file, line: pos.line, selfUs: table.selfUs[id], totalUs: Math.max(table.totalUs[id], table.selfUs[id]), ownUs: table.ownUs[id],
        fn, ...(into !== undefined && intoUs * 2 > table.selfUs[id] ? { inlinedInto: into } : {}), placement: table.placement[id],
        calls: [...table.calls[id]].map(([callee, us]) => ({ callee, us })).sort((a, b) => b.us - a.us),
      });
    });
    out.sort((a, b) => b.totalUs - a.totalUs || b.selfUs - a.selfUs || a.file.localeCompare(b.file) || a.line - b.line);
    const into = new Map<number, { frame: number; us: number }[]>();
    for (const [g, m] of inlinedInto) into.set(g, [...m].map(([frame, us]) => ({ frame, us })).sort((a, b) => b.us - a.us));
    return {
      functions: ctx.functions, selfUs, totalUs, ownUs, inlinedUs, ownParts, notPlaced, inlinedInto: into, lines: out,
      callSites, unplacedCalls: unplaced, userCallers, asyncContexts, packages, skippedSources: sources.skipped, usedV8: v8 !== undefined,
    };
  }
}

/** True when a frame of model function `g` is an ancestor of node v (its inlined ticks are then already in its total). */
function isAncestorFunction(model: ProfileModel, v: number, g: number): boolean {
  for (let a = model.nodes.parent[v]; a >= 0; a = model.nodes.parent[a]) if (model.nodes.func[a] === g) return true;
  return false;
}

/** Node's internal frame names that tell what kind of callback started a stack. */
const ASYNC_KINDS: [RegExp, string][] = [
  [/^(run_main_module|executeUserEntryPoint|wrapModuleLoad|loadESM|runEntryPointWithESMLoader)$/, 'module loading at startup'],
  [/^(processTicksAndRejections|runMicrotasks|processPromiseRejections)$/, 'a promise or process.nextTick callback'],
  [/^(listOnTimeout|processTimers)$/, 'a timer callback'],
  [/^processImmediate$/, 'a setImmediate callback'],
  [/^(parserOnIncoming|parserOnHeadersComplete|parserOnBody|parserOnMessageComplete|socketOnData)$/, 'an HTTP socket callback'],
  [/^(onStreamRead|readableAddChunk|addChunk|emit|Readable\.push|onread)$/, 'a socket callback'],
  [/^(oncomplete|onReadFileComplete|FSReqCallback)$/, 'a file-system callback'],
  [/^(afterWrite|onWriteComplete|afterWriteDispatched)$/, 'a write callback'],
];

/** "runs from a socket callback of `pg`": what started a stack that has no user frame. */
function describeAsync(model: ProfileModel, coreFn: number, pkgFn: number): string {
  const core = coreFn >= 0 ? model.functions[coreFn] : undefined;
  let kind = 'Node\'s event loop';
  if (core) {
    const name = core.name;
    const url = core.url;
    const found = ASYNC_KINDS.find(([re]) => re.test(name));
    if (found) kind = found[1];
    else if (/modules\/|run_main/.test(url)) kind = 'module loading at startup';
    else if (/stream_base_commons|net|stream/.test(url)) kind = 'a socket callback';
    else if (/timers/.test(url)) kind = 'a timer callback';
    else if (/task_queues/.test(url)) kind = 'a promise or process.nextTick callback';
    else if (/_http_/.test(url)) kind = 'an HTTP socket callback';
  }
  const pkg = pkgFn >= 0 ? model.functions[pkgFn].package : null;
  return `runs from ${kind}${pkg ? ` of ${pkg}` : ''}`;
}
