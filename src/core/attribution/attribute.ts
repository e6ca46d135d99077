/**
 * attributeProfile: puts every sample's time where the user can act on it — self time on the line whose
 * code ran (inlined callees in their own file), inclusive time on the call-site line of every user
 * frame, own cost per user function (its self time plus the dependency, Node and native code it calls
 * directly), per-package totals, and for dependency code that no user code called synchronously, what
 * started it. Sources are read only for the calls and frames that can show on a line (see minShare,
 * maxCalls, maxFrames); the pass over the call tree itself is accumulate.ts.
 */
import { boundedTextReader } from '../common/boundedRead';
import type { CancellationToken } from '../common/cancellation';
import type { Category, FileReader, ProfileModel } from '../profile/types';
import type { V8RawSignals } from '../v8/types';
import { accumulate, NON_USER, USER } from './accumulate';
import { describeAsync } from './asyncOrigin';
import { resolveCallSite, resolveInlineSite } from './callSites';
import { AttributionContext } from './context';
import { callPairs } from './pairs';
import { placeFrameEntries } from './placement';
import { profileCallSites } from './profileCallSites';
import { placeFrameAllocations } from './allocationPlacement';
import type { FramePlacement } from './types';
import { Scripts, type DisplayPos } from './scripts';
import { diskSources, readBoundedText, type SourceProvider } from './sources';
import type { Attribution, AttributedLine, CallSiteResult, NotPlaced, OwnPart, PackageTotal, Placement } from './types';

export interface AttributeOptions {
  /** V8's signals of the run (inlining facts); absent with --no-v8 or for profiles from elsewhere. */
  v8?: V8RawSignals;
  /** Runtime source-map URLs per script URL (the profile's `.sourcemaps.json`). */
  sourceMapUrls?: Record<string, string>;
  sources?: SourceProvider;
  fs?: FileReader;
  /** Functions and calls below this share of the profile are not worth reading sources for (default 0.1%: the smallest share a line label shows). */
  minShare?: number;
  /** At most this many calls get their call-site line looked up, heaviest first (default 200). */
  maxCalls?: number;
  /** At most this many frames get their line ticks placed, heaviest first (default 100). */
  maxFrames?: number;
  /**
   * The profile is a sampling heap profile (bytes, no line ticks): each significant frame's bytes are
   * placed on the one inlined callee that can have allocated them, when only one can (allocationPlacement.ts).
   */
  allocations?: boolean;
  token?: CancellationToken;
}

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

/** Ids for display lines (file and line), in the order first seen. */
class LineIds {
  readonly ids = new Map<string, number>();
  readonly pos: DisplayPos[] = [];

  id(pos: { file: string; line: number; column?: number | null }): number {
    const k = `${pos.file}\n${pos.line}`;
    let id = this.ids.get(k);
    if (id === undefined) {
      id = this.pos.length;
      this.ids.set(k, id);
      this.pos.push({ file: pos.file, line: pos.line, column: pos.column ?? null });
    }
    return id;
  }
}

/** The key with the largest value, and that value. */
function heaviest(m: Map<number, number>): [number, number] {
  let best = -1;
  let bestUs = -Infinity;
  for (const [k, us] of m) if (us > bestUs) { best = k; bestUs = us; }
  return [best, bestUs];
}

export async function attributeProfile(model: ProfileModel, options: AttributeOptions = {}): Promise<Attribution> {
  const sources = options.sources ?? diskSources((file) => readBoundedText(file, undefined, undefined, options.token));
  const scripts = new Scripts(model, sources, options.sourceMapUrls, options.fs ?? boundedTextReader({ token: options.token }));
  const v8 = options.v8?.collection.collected ? options.v8 : undefined;
  const ctx = new AttributionContext(model, scripts, v8);
  // Reading sources is the expensive part: only for calls and frames that can show on a line, and at
  // most a bounded number of them, heaviest first (what is left out stays in its function's numbers).
  const minUs = model.durationUs * (options.minShare ?? 0.001);
  // A function-level profile (most pprof producers, 0x) has no lines: nothing is placed on one from the source.
  const functionLevel = model.origin?.granularity === 'functions';
  const maxCalls = functionLevel ? 0 : options.maxCalls ?? 200;
  const maxFrames = functionLevel ? 0 : options.maxFrames ?? 100;
  const { functions, lines } = model;
  const F = functions.length;
  const token = options.token;

  // 1. The calls of user code worth a call-site line (those whose lines the profile records are known).
  const pairs = callPairs(model);
  const table = new LineIds();
  const recorded = await profileCallSites(model, scripts, pairs, (pos) => table.id(pos));
  const looked: number[] = [];
  for (let i = 0; i < pairs.count; i++) if (pairs.us[i] >= minUs && functions[pairs.caller[i]].category === 'user' && !recorded?.pairSites.has(i)) looked.push(i);
  looked.sort((a, b) => pairs.us[b] - pairs.us[a]);
  looked.length = Math.min(looked.length, maxCalls);
  const siteOfPair = new Map<number, CallSiteResult>();
  await inBatches(looked, async (i) => {
    siteOfPair.set(i, await resolveCallSite(ctx, pairs.caller[i], pairs.callee[i]));
  }, token);
  for (const [i, site] of recorded?.pairSites ?? []) siteOfPair.set(i, site);

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
  const entryFn = new Int32Array(lines.count).fill(-1);
  const entryLine = new Int32Array(lines.count).fill(-1);
  const entryInlineSite = new Int32Array(lines.count).fill(-1);
  const entryInlineVia = new Int32Array(lines.count).fill(-1);
  const entryTotalLine = new Int32Array(lines.count).fill(-1);
  const entryPlacement: Placement[] = new Array(lines.count);
  const notPlacedReasons = new Map<number, Set<string>>();
  const inlineSites = new Map<string, CallSiteResult>();
  const frames = [...entriesOf].sort((a, b) => model.functionSelfUs[b[0]] - model.functionSelfUs[a[0]]).slice(0, maxFrames);
  await inBatches(frames, async ([f, entries]) => {
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
  // 2b. Allocation profiles: whose are a frame's bytes, when V8 inlined something into it.
  const frameInlinee = new Int32Array(options.allocations ? F : 0).fill(-1);
  const framePlacements = new Map<number, FramePlacement>();
  if (options.allocations) {
    const heavy: number[] = [];
    for (let f = 0; f < F; f++) {
      const c = functions[f].category;
      if ((c === 'user' || c === 'dependency') && model.functionSelfUs[f] >= minUs) heavy.push(f);
    }
    heavy.sort((a, b) => model.functionSelfUs[b] - model.functionSelfUs[a]);
    await inBatches(heavy.slice(0, maxFrames), async (f) => {
      const placed = await placeFrameAllocations(ctx, f);
      if (!placed) return;
      framePlacements.set(f, placed);
      if (placed.placedOn !== null) frameInlinee[f] = placed.placedOn;
    }, token);
  }
  const pairSite = new Int32Array(pairs.count).fill(-1);
  const pairVia = new Int32Array(pairs.count).fill(-1);
  const pairUnplaced = new Uint8Array(pairs.count);
  for (const [i, site] of siteOfPair) {
    if (site.status === 'placed') {
      pairSite[i] = table.id(site.site);
      if (site.via) pairVia[i] = table.id(site.via);
    } else pairUnplaced[i] = 1;
  }
  await sources.flush?.();

  // 3. The pass. No function is added from here on: the table of functions is final.
  const FN = ctx.functions.length;
  const kind = new Uint8Array(FN);
  const native = new Uint8Array(FN);
  for (let f = 0; f < FN; f++) {
    const c = ctx.functions[f].category;
    kind[f] = c === 'user' ? USER : c === 'dependency' || c === 'node' || c === 'native' ? NON_USER : 0;
    native[f] = c === 'native' ? 1 : 0;
  }
  const packages: string[] = [];
  const packageIds = new Map<string, number>();
  const pkgOf = new Int32Array(F).fill(-1);
  // Callers and async origins are named for the functions that can make the hotspot list.
  const hot = new Uint8Array(F);
  const hottest: number[] = [];
  for (let f = 0; f < F; f++) if (model.functionSelfUs[f] >= minUs && functions[f].category !== 'user') hottest.push(f);
  hottest.sort((a, b) => model.functionSelfUs[b] - model.functionSelfUs[a]);
  for (const f of hottest.slice(0, 100)) hot[f] = 1;
  for (let f = 0; f < F; f++) {
    const pkg = functions[f].category === 'dependency' ? functions[f].package : null;
    if (!pkg) continue;
    let id = packageIds.get(pkg);
    if (id === undefined) {
      id = packages.length;
      packageIds.set(pkg, id);
      packages.push(pkg);
    }
    pkgOf[f] = id;
  }
  const pass = accumulate({
    model, kind, native, pkgOf, packageCount: packages.length, hot, pairs, pairSite, pairVia, pairUnplaced, nodeSite: recorded?.nodeSite ?? null,
    entryFn, entryLine, entryInlineSite, entryInlineVia, entryTotalLine, lineCount: table.pos.length, frameInlinee,
  });

  // 4. The results, in the shapes the outputs read.
  const categoryOf = (f: number): Category => ctx.functions[f].category;
  const callSites = new Map<string, CallSiteResult>();
  for (const [i, site] of siteOfPair) callSites.set(`${pairs.caller[i]}:${pairs.callee[i]}`, site);

  const partsByUser = new Map<number, OwnPart[]>();
  const partList = (user: number) => {
    let list = partsByUser.get(user);
    if (!list) partsByUser.set(user, (list = []));
    return list;
  };
  for (let i = 0; i < pairs.count; i++) {
    const us = pass.partUs[i];
    if (us > 0) partList(pairs.caller[i]).push({ callee: pairs.callee[i], us, ranIn: pass.partNativeUs[i] * 2 > us ? 'native' : categoryOf(pairs.callee[i]) });
  }
  for (const [user, m] of pass.inlinedParts.grouped()) for (const [callee, us] of m) partList(user).push({ callee, us, ranIn: categoryOf(callee) });
  const ownParts = new Map<number, OwnPart[]>();
  for (const [user, list] of partsByUser) ownParts.set(user, list.sort((a, b) => b.us - a.us).slice(0, 8));

  const notPlaced = new Map<number, NotPlaced>();
  for (let f = 0; f < F; f++) if (pass.notPlacedUs[f] > 0) notPlaced.set(f, { us: pass.notPlacedUs[f], reasons: [...(notPlacedReasons.get(f) ?? [])].slice(0, 4) });

  const unplacedCalls = new Map<number, { callee: number; us: number; site: CallSiteResult }[]>();
  for (const [i, site] of siteOfPair) {
    const us = pass.unplacedUs[i];
    if (us < minUs) continue;
    let list = unplacedCalls.get(pairs.caller[i]);
    if (!list) unplacedCalls.set(pairs.caller[i], (list = []));
    list.push({ callee: pairs.callee[i], us, site });
  }
  for (const list of unplacedCalls.values()) list.sort((a, b) => b.us - a.us);

  const userCallers = new Map<number, { caller: number; site: CallSiteResult; us: number }>();
  for (const [f, m] of pass.callerWeights.grouped()) {
    const [pair, us] = heaviest(m);
    userCallers.set(f, { caller: pairs.caller[pair], site: siteOfPair.get(pair) ?? { status: 'not-found' }, us });
  }
  const asyncContexts = new Map<number, string>();
  for (const [f, m] of pass.asyncWeights.grouped()) {
    if (userCallers.has(f)) continue;
    const [key] = heaviest(m);
    asyncContexts.set(f, describeAsync(model, Math.floor(key / (F + 1)) - 1, (key % (F + 1)) - 1));
  }
  const packageTotals: PackageTotal[] = packages.map((pkg, id) => ({ package: pkg, selfUs: pass.pkgSelf[id], totalUs: pass.pkgTotal[id] })).sort((a, b) => b.totalUs - a.totalUs);

  const fnsOnLine = pass.lineFunctions.grouped();
  const callsOnLine = pass.lineCalls.grouped();
  const intoOnLine = pass.lineInlinedInto.grouped();
  const placementOf = new Array<Placement>(table.pos.length).fill('own');
  for (let e = 0; e < lines.count; e++) if (entryLine[e] >= 0 && entryPlacement[e] !== 'own') placementOf[entryLine[e]] = entryPlacement[e];
  const out: AttributedLine[] = [];
  table.pos.forEach((pos, id) => {
    if (pass.lineTotal[id] <= 0 && pass.lineSelf[id] <= 0) return;
    const fns = fnsOnLine.get(id);
    const into = intoOnLine.get(id);
    const first = pass.lineFirstFn[id];
    if (first >= 0 && fns) fns.set(first, (fns.get(first) ?? 0) + pass.lineFirstUs[id]);
    const [fn] = fns ? heaviest(fns) : [first];
    const [frame, frameUs] = into ? heaviest(into) : [-1, 0];
    out.push({
      file: pos.file, line: pos.line, selfUs: pass.lineSelf[id], totalUs: Math.max(pass.lineTotal[id], pass.lineSelf[id]), ownUs: pass.lineOwn[id],
      fn, ...(frame >= 0 && frameUs * 2 > pass.lineSelf[id] ? { inlinedInto: frame } : {}), placement: placementOf[id],
      calls: [...(callsOnLine.get(id) ?? [])].map(([callee, us]) => ({ callee, us })).sort((a, b) => b.us - a.us),
    });
  });
  out.sort((a, b) => b.totalUs - a.totalUs || b.selfUs - a.selfUs || a.file.localeCompare(b.file) || a.line - b.line);
  const inlinedInto = new Map<number, { frame: number; us: number }[]>();
  for (const [g, m] of pass.inlinedInto.grouped()) inlinedInto.set(g, [...m].map(([frame, us]) => ({ frame, us })).sort((a, b) => b.us - a.us));
  // The same placements, per line entry, for the flamegraph's inlined frames (the pass's selfTime reads entryFn alike).
  const entryInlinee = new Int32Array(lines.count).fill(-1);
  const inlinedHow = new Uint8Array(lines.count);
  for (let e = 0; e < lines.count; e++) {
    if (entryFn[e] < 0 || entryFn[e] === lines.func[e]) continue;
    entryInlinee[e] = entryFn[e];
    inlinedHow[e] = entryPlacement[e] === 'inferred' ? 2 : 1;
  }
  return {
    functions: ctx.functions, selfUs: pass.selfUs, totalUs: pass.totalUs, ownUs: pass.ownUs, inlinedUs: pass.inlinedUs, ownParts, notPlaced, inlinedInto, lines: out,
    callSites, unplacedCalls, userCallers, asyncContexts, packages: packageTotals, skippedSources: sources.skipped, usedV8: v8 !== undefined,
    entryInlinee, entryPlacement: inlinedHow, frameInlinee, framePlacements,
  };
}
