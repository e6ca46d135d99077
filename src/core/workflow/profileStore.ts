import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { CapturedProfile } from '../inspector/profilingRun';
import { sourceMapSidecarPath } from '../profile';
import { profileStem } from '../stats/baselineName';

export interface SavedProfile {
  thread: string;
  path: string;
  partial: boolean;
}

/** `20261122-081630` in local time: sortable, readable, safe in file names. */
export function timestamp(date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}${p(date.getMonth() + 1)}${p(date.getDate())}-${p(date.getHours())}${p(date.getMinutes())}${p(date.getSeconds())}`;
}

/** `main` → ''; `worker 2 (w.js)` → `.worker-2`; `process 4242 (marked) worker 1 (w.js)` → `.process-4242-worker-1`. */
function threadSuffix(thread: string): string {
  return thread === 'main' ? '' : '.' + thread.replace(/\s*\([^()]*\)/g, '').replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '');
}

/**
 * Writes each captured thread's profile as a standard .cpuprofile (openable in Chrome DevTools,
 * VS Code, speedscope): `<dir>/<stamp>-<name>.cpuprofile`, workers as `….worker-1.cpuprofile`.
 * Source-map URLs V8 reported go to a `.sourcemaps.json` sidecar, so `hotpath report` maps them too.
 */
export async function saveProfiles(dir: string, name: string, captured: CapturedProfile[]): Promise<SavedProfile[]> {
  await fs.mkdir(dir, { recursive: true });
  const stem = `${timestamp()}-${profileStem(name)}`;
  const saved: SavedProfile[] = [];
  const used = new Set<string>();
  for (const c of captured) {
    // Never two profiles under one name (one would overwrite the other).
    let base = `${stem}${threadSuffix(c.thread)}`;
    for (let n = 2; used.has(base); n++) base = `${stem}${threadSuffix(c.thread)}-${n}`;
    used.add(base);
    const file = path.join(dir, `${base}.cpuprofile`);
    await fs.writeFile(file, JSON.stringify(c.profile));
    if (c.sourceMapUrls) await fs.writeFile(sourceMapSidecarPath(file), JSON.stringify(c.sourceMapUrls));
    saved.push({ thread: c.thread, path: file, partial: c.partial });
  }
  return saved;
}
