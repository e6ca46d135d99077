import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildAnnotations } from '../../core/annotate';
import { loadProfile, rankHotspots, type ProfileModel } from '../../core/profile';
import type { ThreadHotspot } from '../../core/workflow/analyze';
import type { LoadedProfile } from '../session';

function maxFunctions(): number {
  return vscode.workspace.getConfiguration('hotpath.annotations').get<number>('maxFunctions') ?? 15;
}

/** The editor's view of a profile the workflow just analysed (its model is reused, not re-read). */
export function loadedFromAnalysis(profilePath: string, model: ProfileModel, hotspots: ThreadHotspot[]): LoadedProfile {
  const main = hotspots.filter((h) => h.thread === 'main');
  return {
    profilePath, title: path.basename(profilePath), model, hotspots,
    annotations: buildAnnotations(model, { profilePath, hotspots: main, maxFunctions: maxFunctions() }),
  };
}

/** A .cpuprofile from disk (any format the core reads), source-mapped. Errors say what is wrong with it. */
export async function loadedFromFile(file: string): Promise<LoadedProfile> {
  const model = await loadProfile(file, { sourceMaps: true, thread: 'main' });
  const hotspots = rankHotspots(model, { limit: 50 }).map((h) => ({ ...h, thread: 'main' }));
  return loadedFromAnalysis(file, model, hotspots);
}
