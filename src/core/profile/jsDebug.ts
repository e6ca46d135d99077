/**
 * VS Code's JavaScript debugger (js-debug) saves profiles with a `$vscode` annotation: for each distinct
 * call frame (and each positionTicks line, as a frame at `line - 1`, column 0) the source-mapped
 * locations it resolved at record time, 1-based:
 *
 *   "$vscode": { "rootPath": "/ws", "locations": [ { "callFrame": {...},
 *       "locations": [ { "lineNumber": 3, "columnNumber": 17, "source": { "path": "/ws/src/a.ts", ... } } ] } ] }
 *
 * and nodes get `locationId` / positionTicks get `startLocationId` (indices into `locations`), which the
 * scanner skips: the callFrame is enough to join on. We use these locations only as a fallback when our
 * own source mapping could not map a position (e.g. the compiled files are gone).
 */
import type { JsDebugLocations } from './types';
import { urlToFile } from './categories';

interface RawLocation {
  lineNumber?: unknown;
  columnNumber?: unknown;
  source?: { path?: unknown };
}

/** Parse the `$vscode` value; fields it does not hold usably are left out (never throws). */
export function parseJsDebugAnnotations(json: string): { rootPath?: string; locations?: JsDebugLocations } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return {};
  }
  if (typeof value !== 'object' || value === null) return {};
  const annotations = value as { rootPath?: unknown; locations?: unknown };
  const rootPath = typeof annotations.rootPath === 'string' ? annotations.rootPath : undefined;
  if (!Array.isArray(annotations.locations)) return { rootPath };

  const byPosition = new Map<string, { file: string; line: number; column: number }>();
  for (const entry of annotations.locations as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { callFrame, locations } = entry as { callFrame?: Record<string, unknown>; locations?: unknown };
    if (!callFrame || !Array.isArray(locations)) continue;
    const url = callFrame.url;
    if (typeof url !== 'string' || typeof callFrame.lineNumber !== 'number') continue;
    const best = pickLocation(locations as RawLocation[], urlToFile(url), rootPath);
    if (best) byPosition.set(positionKey(url, callFrame.lineNumber, Number(callFrame.columnNumber ?? 0)), best);
  }
  return { rootPath, locations: { byPosition } };
}

export function positionKey(url: string, lineNumber: number, columnNumber: number): string {
  return `${url}\n${lineNumber}\n${columnNumber}`;
}

/**
 * js-debug lists the script's own location and its source-mapped siblings. Only a location in another
 * file adds information; prefer one inside the workspace, as js-profile-visualizer does.
 */
function pickLocation(candidates: RawLocation[], scriptFile: string, rootPath: string | undefined) {
  let fallback: { file: string; line: number; column: number } | undefined;
  for (const c of candidates) {
    const path = c?.source?.path;
    if (typeof path !== 'string' || path === scriptFile || typeof c.lineNumber !== 'number') continue;
    const found = { file: path, line: c.lineNumber, column: typeof c.columnNumber === 'number' ? c.columnNumber : 1 };
    if (!rootPath || path.startsWith(rootPath)) return found;
    fallback ??= found;
  }
  return fallback;
}
