/**
 * The profile as V8 reports it, in attribution's shapes, for `--no-attribution`: self time per function
 * and per line as V8 charged them, no source read. Faster on huge profiles (CI), but inlined code may sit
 * on its caller's lines, callees' time is on no call line, and own cost is self time.
 */
import { displayName, displayPosition } from '../profile/hotspots';
import { AMBIGUOUS_LINE } from '../profile/lines';
import type { ProfileModel } from '../profile/types';
import type { Attribution, AttributedFunctionInfo, AttributedLine } from './types';

export function plainAttribution(model: ProfileModel): Attribution {
  const functions: AttributedFunctionInfo[] = model.functions.map((info, f) => {
    const pos = displayPosition(info);
    return { model: f, name: displayName(info), file: pos.file, line: pos.line, column: pos.column, url: info.url, category: info.category, package: info.package, ...(info.unavailableSource ? { sourceNotInstalled: info.unavailableSource } : {}) };
  });
  const { lines } = model;
  const byLine = new Map<string, AttributedLine & { best: number }>();
  for (let e = 0; e < lines.count; e++) {
    const f = lines.func[e];
    const info = model.functions[f];
    if ((info.category !== 'user' && info.category !== 'dependency') || lines.originalLine[e] === AMBIGUOUS_LINE) continue;
    const mapped = lines.originalLine[e] > 0;
    const file = mapped ? lines.originalFile[e]! : info.file;
    const line = mapped ? lines.originalLine[e] : lines.line[e];
    const k = `${file}\n${line}`;
    const us = lines.selfUs[e];
    const row = byLine.get(k);
    if (!row) byLine.set(k, { file, line, selfUs: us, totalUs: us, ownUs: us, fn: f, best: us, placement: 'own', calls: [] });
    else {
      row.selfUs += us;
      row.totalUs += us;
      row.ownUs += us;
      if (us > row.best) { row.best = us; row.fn = f; }
    }
  }
  const out: AttributedLine[] = [...byLine.values()].map(({ best: _best, ...row }) => row).sort((a, b) => b.totalUs - a.totalUs);
  const selfUs = Float64Array.from(model.functionSelfUs);
  return {
    functions, selfUs, totalUs: Float64Array.from(model.functionTotalUs), ownUs: Float64Array.from(selfUs), inlinedUs: new Float64Array(functions.length),
    ownParts: new Map(), notPlaced: new Map(), inlinedInto: new Map(), lines: out, callSites: new Map(), unplacedCalls: new Map(),
    userCallers: new Map(), asyncContexts: new Map(), packages: [], skippedSources: new Map(), usedV8: false,
    entryInlinee: new Int32Array(lines.count).fill(-1), entryPlacement: new Uint8Array(lines.count), frameInlinee: new Int32Array(0), framePlacements: new Map(),
  };
}
