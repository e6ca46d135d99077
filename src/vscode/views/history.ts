import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { BaselineStore, type BaselineSummary } from '../../core/stats/baselineStore';
import { sourceMapSidecarPath } from '../../core/profile';

/** Where runs store their files in a workspace folder (the CLI uses the same layout). */
export const profilesDir = (folder: string): string => path.join(folder, '.hotpath', 'profiles');
export const baselinesDir = (folder: string): string => path.join(folder, '.hotpath', 'baselines');

export interface ProfileEntry { file: string; name: string; mtimeMs: number; sizeBytes: number }

/** Saved profiles of a folder, newest first. */
export async function listProfiles(folder: string): Promise<ProfileEntry[]> {
  const dir = profilesDir(folder);
  let names: string[];
  try { names = await fs.readdir(dir); } catch { return []; }
  const entries = await Promise.all(names.filter((n) => n.endsWith('.cpuprofile')).map(async (name) => {
    const file = path.join(dir, name);
    try {
      const st = await fs.stat(file);
      return { file, name, mtimeMs: st.mtimeMs, sizeBytes: st.size };
    } catch { return undefined; }
  }));
  return entries.filter((e): e is ProfileEntry => e !== undefined).sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** Deletes a profile with the files written next to it (source-map sidecar, HTML report). */
export async function deleteProfile(file: string): Promise<void> {
  await fs.rm(file, { force: true });
  await fs.rm(sourceMapSidecarPath(file), { force: true });
  await fs.rm(file.replace(/\.cpuprofile$/i, '') + '.html', { force: true });
}

export interface BaselineEntry extends BaselineSummary { nodeVersion?: string; p99Ms?: number }

/** Baselines of a folder with what the view shows (Node version from each file's environment). */
export async function listBaselines(folder: string): Promise<BaselineEntry[]> {
  const store = new BaselineStore(baselinesDir(folder));
  const list = await store.list();
  return Promise.all(list.map(async (b) => {
    if (b.problem) return b;
    try {
      const full = await store.load(b.name);
      const p99 = full.runs.reduce((s, r) => s + r.p99Ms, 0) / full.runs.length;
      return { ...b, nodeVersion: full.environment.nodeVersion, p99Ms: p99 };
    } catch { return b; }
  }));
}
