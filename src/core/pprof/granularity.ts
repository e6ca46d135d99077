/**
 * Does a pprof profile know lines, or only functions? Most Node producers write one Line per frame whose
 * `line` is the *function's start line* (V8's default leaf-line mode: @datadog/pprof without
 * `lineNumbers`, the Pyroscope SDK, google/pprof-nodejs). Read as lines, that would paint every
 * function's time on its declaration line: heat that never ran there. So a profile is line-level only on
 * evidence:
 * - functions carry `start_line` (Hotpath's export, Go) and frames sit on other lines; or
 * - without start lines (@datadog/pprof's `lineNumbers: true`), where the workspace has the code: the
 *   frames do not sit on their functions' declaration lines (granularityFromSource);
 * - else: the same function, called from the same caller location, is sampled on several lines for a real
 *   share of the leaf time. In function-level profiles that happens only when two same-named functions of
 *   one file share a caller — rare. (A line-level profile whose hot functions each ran on one line only
 *   is then read as function-level: less detail, never invented detail.)
 */
import { lastSegment } from '../attribution/context';
import { diskSources, type SourceProvider } from '../attribution/sources';
import type { DecodedPprof } from './decode';

export type Granularity = 'lines' | 'functions';

/** Share of the leaf weight (of frames with a file and a line) on several lines per (caller, function) that means lines. */
const LINE_EVIDENCE_SHARE = 0.2;

export function detectGranularity(d: DecodedPprof, functionIndex: Map<number, number>, locationIndex: Map<number, number>, weight: (s: number) => number): Granularity {
  let withStart = false;
  for (let f = 0; f < d.functionCount; f++) if (d.functionStartLine[f] > 0) { withStart = true; break; }
  if (withStart) {
    for (let k = 0; k < d.lineFunction.length; k++) {
      const f = functionIndex.get(d.lineFunction[k]);
      if (f === undefined) continue;
      const start = d.functionStartLine[f];
      if (start > 0 && d.lineLine[k] > 0 && d.lineLine[k] !== start) return 'lines';
    }
    return 'functions';
  }

  // (caller location, leaf function) → the first leaf line seen, its weight, and the weight on other lines.
  const groups = new Map<string, { line: number; first: number; other: number }>();
  let total = 0;
  for (let s = 0; s < d.sampleCount; s++) {
    const start = d.sampleLocStart[s];
    if (d.sampleLocStart[s + 1] - start < 1) continue;
    const w = weight(s);
    if (!(w > 0)) continue;
    const leafLoc = d.locIds[start];
    const callerLoc = d.sampleLocStart[s + 1] - start > 1 ? d.locIds[start + 1] : 0;
    const leaf = leafLine(d, locationIndex, leafLoc);
    if (!leaf || leaf.line <= 0) continue;
    const f = functionIndex.get(leaf.fn);
    if (f === undefined || d.functionFilename[f] === 0) continue;
    total += w;
    const key = `${callerLoc}:${leaf.fn}`;
    const g = groups.get(key);
    if (!g) groups.set(key, { line: leaf.line, first: w, other: 0 });
    else if (g.line === leaf.line) g.first += w;
    else g.other += w;
  }
  if (total <= 0) return 'functions';
  let multi = 0;
  for (const g of groups.values()) if (g.other > 0) multi += g.first + g.other;
  return multi / total >= LINE_EVIDENCE_SHARE ? 'lines' : 'functions';
}

/** The innermost line of a location (line[0]: inlined callees come first), by location id. */
function leafLine(d: DecodedPprof, locationIndex: Map<number, number>, id: number): { fn: number; line: number } | null {
  const l = locationIndex.get(id);
  if (l === undefined || d.locationLineStart[l + 1] === d.locationLineStart[l]) return null;
  const k = d.locationLineStart[l];
  return { fn: d.lineFunction[k], line: d.lineLine[k] };
}

/** Frames checked against the source at most (distinct function and line). */
const MAX_SOURCE_FRAMES = 400;

/**
 * The surer test, where the workspace has the code: in a function-level profile every named frame sits on
 * its function's declaration line; in a line-level one most sit on the line they were running or calling
 * from. Frames whose function the source does not define by that name are not counted. Undefined when
 * the source cannot tell (nothing readable, or no clear majority): the statistical test then decides.
 */
export async function granularityFromSource(frames: Iterable<{ name: string; file: string; line: number }>, sources: SourceProvider = diskSources()): Promise<Granularity | undefined> {
  let onDeclaration = 0;
  let elsewhere = 0;
  let checked = 0;
  for (const frame of frames) {
    if (checked >= MAX_SOURCE_FRAMES) break;
    if (!frame.name || frame.line <= 0) continue;
    const file = await sources.file(frame.file).catch(() => undefined);
    if (!file) continue;
    const defs = file.definitionsOf(lastSegment(frame.name)).filter((fn) => fn.parent !== -1);
    if (!defs.length) continue;
    checked++;
    if (defs.some((fn) => fn.anchor.line === frame.line || fn.startLine === frame.line)) onDeclaration++;
    else elsewhere++;
  }
  if (checked < 2) return undefined;
  if (elsewhere >= checked * 0.3) return 'lines';
  if (onDeclaration >= checked * 0.9) return 'functions';
  return undefined;
}
