import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { CapturedProfile } from '../inspector/profilingRun';
import { sourceMapSidecarPath } from '../profile';
import { profileStem } from '../stats/baselineName';
import { readBoundedFile } from '../common/boundedRead';
import type { CancellationToken } from '../common/cancellation';

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
  if (saved.length > 1) await writeThreadSidecar(saved);
  return saved;
}

/**
 * `<main>.cpuprofile.threads.json`: the other threads' profiles of the run (file names in the same
 * folder) and their labels, so whoever opens the main profile later (`hotpath report`, VS Code) covers
 * every thread, as the run did.
 */
export function threadSidecarPath(profilePath: string): string {
  return `${profilePath}.threads.json`;
}

interface ThreadSidecar { version: 1; threads: Array<{ thread: string; file: string; partial: boolean }> }

async function writeThreadSidecar(saved: SavedProfile[]): Promise<void> {
  const [main, ...others] = saved;
  const doc: ThreadSidecar = { version: 1, threads: others.map((s) => ({ thread: s.thread, file: path.basename(s.path), partial: s.partial })) };
  await fs.writeFile(threadSidecarPath(main.path), JSON.stringify(doc));
}

/**
 * The thread profiles recorded with a profile: itself as `main`, then those its threads sidecar names
 * that are still there. A sidecar is data from disk: only plain file names in the profile's own folder
 * count, each once; anything else in it is ignored, and a missing or damaged sidecar means one thread.
 */
export async function threadProfilesOf(profilePath: string, token?: CancellationToken): Promise<SavedProfile[]> {
  const main: SavedProfile = { thread: 'main', path: profilePath, partial: false };
  let doc: Partial<ThreadSidecar>;
  try {
    doc = JSON.parse((await readBoundedFile(threadSidecarPath(profilePath), { maxBytes: 1024 * 1024, token })).toString('utf8'));
  } catch {
    return [main];
  }
  const out = [main];
  const dir = path.dirname(profilePath);
  const seen = new Set([path.basename(profilePath)]);
  for (const t of Array.isArray(doc?.threads) ? doc.threads : []) {
    if (!t || typeof t.thread !== 'string' || typeof t.file !== 'string' || !t.thread || t.thread === 'main') continue;
    if (t.file !== path.basename(t.file) || t.file === '.' || t.file === '..' || !t.file.endsWith('.cpuprofile') || seen.has(t.file)) continue;
    const file = path.join(dir, t.file);
    try { if (!(await fs.stat(file)).isFile()) continue; } catch { continue; }
    seen.add(t.file);
    out.push({ thread: t.thread.slice(0, 200), path: file, partial: t.partial === true });
  }
  return out;
}
