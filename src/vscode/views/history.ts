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

/** Baselines of a folder, newest first (one read per file: the store's summaries carry what the view shows). */
export function listBaselines(folder: string): Promise<BaselineSummary[]> {
  return new BaselineStore(baselinesDir(folder)).list();
}
