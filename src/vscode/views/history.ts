import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { BaselineStore, type BaselineSummary } from '../../core/stats/baselineStore';
import { sourceMapSidecarPath } from '../../core/profile';
import { v8SidecarPath } from '../../core/v8/sidecar';
import { threadProfilesOf, threadSidecarPath } from '../../core/workflow/profileStore';

/** Where runs store their files in a workspace folder (the CLI uses the same layout). */
export const profilesDir = (folder: string): string => path.join(folder, '.hotpath', 'profiles');
export const baselinesDir = (folder: string): string => path.join(folder, '.hotpath', 'baselines');

export interface ProfileEntry { file: string; name: string; mtimeMs: number; sizeBytes: number }

/** Saved profiles of a folder, newest first. */
export async function listProfiles(folder: string): Promise<ProfileEntry[]> {
  const dir = profilesDir(folder);
  let names: string[];
  try { names = await fs.readdir(dir); } catch { return []; }
  // A run's worker-thread profiles open with its main profile: listed once, under it.
  const workerFiles = new Set<string>();
  for (const n of names.filter((x) => x.endsWith('.cpuprofile') && names.includes(path.basename(threadSidecarPath(x))))) {
    for (const t of (await threadProfilesOf(path.join(dir, n))).slice(1)) workerFiles.add(path.basename(t.path));
  }
  const entries = await Promise.all(names.filter((n) => n.endsWith('.cpuprofile') && !workerFiles.has(n)).map(async (name) => {
    const file = path.join(dir, name);
    try {
      const st = await fs.stat(file);
      return { file, name, mtimeMs: st.mtimeMs, sizeBytes: st.size };
    } catch { return undefined; }
  }));
  return entries.filter((e): e is ProfileEntry => e !== undefined).sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** Deletes a profile with the files written next to it (sidecars, HTML report) and its run's worker-thread profiles. */
export async function deleteProfile(file: string): Promise<void> {
  const threads = await threadProfilesOf(file);
  for (const t of threads) {
    await fs.rm(t.path, { force: true });
    await fs.rm(sourceMapSidecarPath(t.path), { force: true });
    await fs.rm(v8SidecarPath(t.path), { force: true });
  }
  await fs.rm(threadSidecarPath(file), { force: true });
  await fs.rm(file.replace(/\.cpuprofile$/i, '') + '.html', { force: true });
}

/** Baselines of a folder, newest first (one read per file: the store's summaries carry what the view shows). */
export function listBaselines(folder: string): Promise<BaselineSummary[]> {
  return new BaselineStore(baselinesDir(folder)).list();
}
