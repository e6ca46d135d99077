/**
 * Maps function and line positions of compiled scripts back to their original sources, so a TypeScript
 * app reports `.ts` files and lines. Async because it reads scripts and maps; buildProfileModel stays
 * sync and pure. Never throws: a missing or broken map leaves positions unmapped and is reported in
 * `model.sourceMaps.failures` and one warning.
 */
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  FlattenMap,
  GREATEST_LOWER_BOUND,
  LEAST_UPPER_BOUND,
  decodedMappings,
  originalPositionFor,
  type TraceMap,
} from '@jridgewell/trace-mapping';
import { boundedTextReader, PROFILE_NAMED_FILE_MAX_BYTES, readBoundedFile } from '../common/boundedRead';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { errorMessage } from '../common/errors';
import { positionKey } from './jsDebug';
import { packageName, urlToFile } from './categories';
import type { FileReader, ProfileModel } from './types';
import { AMBIGUOUS_LINE } from './lines';

/** Scripts and maps are named by the profile: regular files only, bounded in size and time (boundedRead.ts). */
const nodeReader: FileReader = boundedTextReader();

/** Scripts read at once; enough to hide latency without opening hundreds of files together. */
const CONCURRENCY = 8;

/** More source lines than this on one generated line make a line-only position unplaceable. */
const MAX_SOURCE_LINES_PER_LINE = 3;

interface Position {
  file: string;
  line: number;
  column: number;
}

/** Where the runtime source-map URLs of a saved profile live: next to it, so the profile stays standard. */
export function sourceMapSidecarPath(profilePath: string): string {
  return `${profilePath}.sourcemaps.json`;
}

/** The runtime source-map URLs saved next to a profile, or undefined when there are none or they are unreadable. */
export async function readSourceMapSidecar(profilePath: string, token?: CancellationToken): Promise<Record<string, string> | undefined> {
  try {
    const value = JSON.parse((await readBoundedFile(sourceMapSidecarPath(profilePath), { maxBytes: PROFILE_NAMED_FILE_MAX_BYTES, token })).toString('utf8'));
    return value && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function applySourceMaps(model: ProfileModel, reader: FileReader = nodeReader, runtimeMapUrls: Record<string, string> = {}, token: CancellationToken = neverCancelled): Promise<void> {
  const stats = model.sourceMaps;
  if (stats.applied) return; // positions are mapped once; a second pass would map mapped positions
  stats.applied = true;

  // Functions and line entries of mappable code, grouped by script url.
  const byScript = new Map<string, { functions: number[]; lines: number[] }>();
  const group = (url: string) => {
    let g = byScript.get(url);
    if (g === undefined) byScript.set(url, (g = { functions: [], lines: [] }));
    return g;
  };
  const mappable = (f: number) => {
    const info = model.functions[f];
    return (info.category === 'user' || info.category === 'dependency') && info.url !== '';
  };
  model.functions.forEach((info, f) => {
    if (mappable(f)) group(info.url).functions.push(f);
  });
  const { lines } = model;
  for (let e = 0; e < lines.count; e++) {
    if (mappable(lines.func[e])) group(model.functions[lines.func[e]].url).lines.push(e);
  }

  const urls = [...byScript.keys()];
  let next = 0;
  const worker = async () => {
    while (next < urls.length) {
      throwIfCancelled(token, 'Reading source maps');
      const url = urls[next++];
      const map = await loadMap(url, reader, stats.failures, runtimeMapUrls[url]);
      if (map !== null) {
        stats.scriptsMapped++;
        mapScript(model, map, byScript.get(url)!, await presentSources(map, reader));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, urls.length) }, worker));
  throwIfCancelled(token, 'Reading source maps');

  if (model.jsDebug) applyJsDebugLocations(model, byScript);

  model.warnings.push(...sourceMapWarnings(model));
}

/**
 * The sources of `map` that exist on disk. A position mapped into a file that is not there (a package
 * published with maps to its unpublished `src/`) would name a line nobody can open, so those positions
 * keep the installed script's file and line, with the original as secondary.
 */
export async function presentSources(map: TraceMap, reader: FileReader): Promise<Set<string>> {
  const files = [...new Set(map.resolvedSources.filter((s): s is string => s != null).map(urlToFile))];
  if (!reader.exists) return new Set(files);
  const exists = reader.exists.bind(reader);
  const present = await Promise.all(files.map((f) => (path.isAbsolute(f) ? exists(f).catch(() => false) : Promise.resolve(false))));
  return new Set(files.filter((_, i) => present[i]));
}

function mapScript(model: ProfileModel, map: TraceMap, group: { functions: number[]; lines: number[] }, present: Set<string>): void {
  const stats = model.sourceMaps;
  for (const f of group.functions) {
    const info = model.functions[f];
    if (info.line === null) continue;
    const found = mapPoint(map, info.line, (info.column ?? 1) - 1);
    if (found === null) continue;
    if (!present.has(found.file)) {
      info.unavailableSource = found;
      continue;
    }
    info.originalFile = found.file;
    info.originalLine = found.line;
    info.originalColumn = found.column;
    stats.functionsMapped++;
  }
  const { lines } = model;
  for (const e of group.lines) {
    const found = mapLine(map, lines.line[e]);
    if (found === 'ambiguous') {
      lines.originalLine[e] = AMBIGUOUS_LINE;
      stats.linesAmbiguous = (stats.linesAmbiguous ?? 0) + 1;
      const url = model.functions[lines.func[e]].url;
      (stats.ambiguousByUrl ??= {})[url] = (stats.ambiguousByUrl[url] ?? 0) + 1;
      continue;
    }
    if (found === null || !present.has(found.file)) continue;
    lines.originalFile[e] = found.file;
    lines.originalLine[e] = found.line;
    stats.linesMapped++;
  }
}

/** A function position (1-based line, 0-based column): the segment at or before it, else after it. */
export function mapPoint(map: TraceMap, line: number, column: number): Position | null {
  try {
    let m = originalPositionFor(map, { line, column, bias: GREATEST_LOWER_BOUND });
    if (m.source === null) m = originalPositionFor(map, { line, column, bias: LEAST_UPPER_BOUND });
    if (m.source === null) return null;
    return { file: urlToFile(m.source), line: m.line, column: m.column + 1 };
  } catch {
    return null;
  }
}

/**
 * A line-only position (positionTicks): the first segment on that line (column 0, LEAST_UPPER_BOUND);
 * if that segment has no source (generated-only code such as a helper prologue), the first one on the
 * line that has one. A line without mapped segments stays unmapped rather than borrowing a neighbour's.
 */
export function mapLine(map: TraceMap, line: number): Position | null | 'ambiguous' {
  try {
    // positionTicks carry no column: on a generated line holding many source lines (tsx output,
    // minified code) any choice would be a guess, so say so instead of reporting a wrong line.
    const sourceLines = new Set<number>();
    for (const s of decodedMappings(map)[line - 1] ?? []) if (s.length >= 4) sourceLines.add(s[2]!);
    if (sourceLines.size > MAX_SOURCE_LINES_PER_LINE) return 'ambiguous';
    const m = originalPositionFor(map, { line, column: 0, bias: LEAST_UPPER_BOUND });
    if (m.source !== null) return { file: urlToFile(m.source), line: m.line, column: m.column + 1 };
    const segments = decodedMappings(map)[line - 1];
    for (const s of segments ?? []) {
      if (s.length >= 4) {
        const source = map.resolvedSources[s[1]!];
        if (source != null) return { file: urlToFile(source), line: s[2]! + 1, column: s[3]! + 1 };
      }
    }
    return null;
  } catch {
    return null;
  }
}

/** Loads the source map a script declares; null (with a recorded reason if it declared one) otherwise. */
export async function loadMap(url: string, reader: FileReader, failures: { url: string; reason: string }[], runtimeReference?: string): Promise<TraceMap | null> {
  const scriptFile = urlToFile(url);
  if (!path.isAbsolute(scriptFile)) return null; // http:, vm scripts…: nothing on disk to read
  // What V8 ran wins over the file on disk: with tsx the file is the .ts source, the map is in memory.
  if (runtimeReference) return mapFromReference(url, runtimeReference, scriptFile, reader, failures);
  let code: string;
  try {
    code = await reader.readFile(scriptFile);
  } catch {
    return null; // the script itself is gone (profile from another machine): nothing to map, not a map failure
  }
  const reference = findSourceMappingUrl(code);
  if (reference === null) {
    // No annotation: a map right next to the script (esbuild's `sourcemap: 'external'`, some bundler
    // setups) is still almost certainly this script's map. Absent is the normal case, not a failure.
    const sibling = `${scriptFile}.map`;
    let json: string;
    try {
      json = await reader.readFile(sibling);
    } catch {
      return null;
    }
    try {
      return new FlattenMap(JSON.parse(json), pathToFileURL(sibling).href);
    } catch (err) {
      failures.push({ url, reason: `${sibling}: ${errorMessage(err)}` });
      return null;
    }
  }

  return mapFromReference(url, reference, scriptFile, reader, failures);
}

async function mapFromReference(url: string, reference: string, scriptFile: string, reader: FileReader, failures: { url: string; reason: string }[]): Promise<TraceMap | null> {
  try {
    let json: string;
    let mapUrl: string;
    if (reference.startsWith('data:')) {
      json = decodeDataUrl(reference);
      mapUrl = pathToFileURL(scriptFile).href; // inline maps resolve sources next to the script
    } else {
      const mapFile = resolveMapFile(reference, scriptFile);
      if (mapFile === null) throw new Error(`source map location "${reference}" is not a file`);
      json = await reader.readFile(mapFile);
      mapUrl = pathToFileURL(mapFile).href;
    }
    return new FlattenMap(JSON.parse(json), mapUrl);
  } catch (err) {
    failures.push({ url, reason: errorMessage(err) });
    return null;
  }
}

/** The value of the script's last `//# sourceMappingURL=` (or `//@`, `/*#`) comment. */
export function findSourceMappingUrl(code: string): string | null {
  const needle = 'sourceMappingURL=';
  for (let at = code.lastIndexOf(needle); at >= 0; at = at > 0 ? code.lastIndexOf(needle, at - 1) : -1) {
    const before = code.slice(Math.max(0, at - 8), at);
    if (!/\/[/*][#@][ \t]*$/.test(before)) continue;
    const value = /^[^\s'"`*]+/.exec(code.slice(at + needle.length));
    return value ? value[0] : null;
  }
  return null;
}

function decodeDataUrl(url: string): string {
  const comma = url.indexOf(',');
  if (comma < 0) throw new Error('malformed data: URL');
  const meta = url.slice(5, comma);
  const data = url.slice(comma + 1);
  return /;base64$/i.test(meta) ? Buffer.from(data, 'base64').toString('utf8') : decodeURIComponent(data);
}

function resolveMapFile(reference: string, scriptFile: string): string | null {
  if (reference.startsWith('file:')) return fileURLToPath(reference);
  if (/^[a-z][a-z0-9+.-]*:/i.test(reference)) return null; // http: etc.
  let decoded = reference;
  try {
    decoded = decodeURIComponent(reference); // the value is a URL: "my%20map.js.map"
  } catch {
    // not percent-encoded after all
  }
  return path.resolve(path.dirname(scriptFile), decoded);
}

/** Fill positions our own mapping left unmapped from js-debug's recorded locations. */
function applyJsDebugLocations(model: ProfileModel, byScript: Map<string, { functions: number[]; lines: number[] }>): void {
  const found = model.jsDebug!.byPosition;
  const stats = model.sourceMaps;
  for (const group of byScript.values()) {
    for (const f of group.functions) {
      const info = model.functions[f];
      if (info.originalFile !== undefined || info.line === null) continue;
      const hit = found.get(positionKey(info.url, info.line - 1, (info.column ?? 1) - 1));
      if (!hit) continue;
      info.originalFile = hit.file;
      info.originalLine = hit.line;
      info.originalColumn = hit.column;
      stats.functionsMapped++;
    }
    for (const e of group.lines) {
      if (model.lines.originalLine[e] > 0) continue;
      const info = model.functions[model.lines.func[e]];
      const hit = found.get(positionKey(info.url, model.lines.line[e] - 1, 0));
      if (!hit) continue;
      model.lines.originalFile[e] = hit.file;
      model.lines.originalLine[e] = hit.line;
      stats.linesMapped++;
    }
  }
}

/** Shown file names in warnings: the last two path segments are enough to find a file, and keep the line short. */
function shortName(url: string): string {
  const file = urlToFile(url);
  const parts = file.split(/[\\/]/).filter(Boolean);
  return parts.slice(-2).join('/');
}

function listed(names: string[], max = 3): string {
  const unique = [...new Set(names)];
  return unique.slice(0, max).join(', ') + (unique.length > max ? ` and ${unique.length - max} more` : '');
}

/**
 * Source-map problems, separated by whose code it is: the user's own code gets the advice to rebuild
 * with source maps; a package's code gets none (nobody rebuilds their dependencies), only what it means.
 */
function sourceMapWarnings(model: ProfileModel): import('../common/warnings').Warning[] {
  const stats = model.sourceMaps;
  const out: import('../common/warnings').Warning[] = [];
  const isDependency = (url: string) => urlToFile(url).replace(/\\/g, '/').includes('/node_modules/');
  const ambiguous = Object.entries(stats.ambiguousByUrl ?? {});
  const userAmbiguous = ambiguous.filter(([url]) => !isDependency(url));
  const depAmbiguous = ambiguous.filter(([url]) => isDependency(url));
  if (userAmbiguous.length) {
    const n = userAmbiguous.reduce((sum, [, c]) => sum + c, 0);
    out.push({
      code: 'LINES_NOT_MAPPABLE',
      message:
        `${n} hot line(s) of your code (${listed(userAmbiguous.map(([url]) => shortName(url)))}) ran in generated code that puts many source lines on one line (e.g. TypeScript run through tsx, or minified code); ` +
        'V8 records only line numbers, so those are left out of the hot lines (functions are still mapped). For per-line results, build with source maps (tsc or esbuild) and run the built JavaScript.',
    });
  }
  if (depAmbiguous.length) {
    const n = depAmbiguous.reduce((sum, [, c]) => sum + c, 0);
    const packages = depAmbiguous.map(([url]) => packageName(urlToFile(url)) ?? shortName(url));
    out.push({
      code: 'DEPENDENCY_LINES_NOT_MAPPABLE',
      message: `${n} hot line(s) in minified or bundled package code (${listed(packages)}) cannot be placed on a source line; their functions are still shown with their time.`,
    });
  }
  const userFailures = stats.failures.filter((f) => !isDependency(f.url));
  const depFailures = stats.failures.filter((f) => isDependency(f.url));
  if (userFailures.length) {
    const first = userFailures[0];
    out.push({
      code: 'SOURCE_MAP_UNUSABLE',
      message:
        `${userFailures.length} source map(s) of your code could not be used (${listed(userFailures.map((f) => shortName(f.url)))}), so those positions stay in compiled code ` +
        `(first: ${first.url}: ${first.reason}). Rebuild with source maps next to the compiled files.`,
    });
  }
  if (depFailures.length) {
    const packages = depFailures.map((f) => packageName(urlToFile(f.url)) ?? shortName(f.url));
    out.push({
      code: 'DEPENDENCY_SOURCE_MAP_UNUSABLE',
      message: `${depFailures.length} source map(s) shipped with packages (${listed(packages)}) could not be used; their positions stay in the installed files (first: ${depFailures[0].url}: ${depFailures[0].reason}).`,
    });
  }
  return out;
}
