import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildAnnotations } from '../../core/annotate';
import { loadProfile, type ProfileModel } from '../../core/profile';
import { annotateHotspots, attachV8, rankThread, type ThreadHotspot } from '../../core/workflow/analyze';
import type { V8FunctionSignals } from '../../core/v8/types';
import type { LoadedProfile } from '../session';

function maxFunctions(): number {
  return vscode.workspace.getConfiguration('hotpath.annotations').get<number>('maxFunctions') ?? 15;
}

/** The editor's view of a profile the workflow just analysed (its model is reused, not re-read). */
export function loadedFromAnalysis(profilePath: string, model: ProfileModel, hotspots: ThreadHotspot[], v8Functions?: ReadonlyMap<number, V8FunctionSignals>): LoadedProfile {
  const main = hotspots.filter((h) => h.thread === 'main');
  return {
    profilePath, title: path.basename(profilePath), model, hotspots, v8Functions,
    annotations: buildAnnotations(model, { profilePath, hotspots: main, maxFunctions: maxFunctions() }),
  };
}

/**
 * A .cpuprofile from disk (any format the core reads), source-mapped, with the V8 signals saved beside
 * it when a Hotpath run recorded them. Errors say what is wrong with the file.
 */
export async function loadedFromFile(file: string): Promise<LoadedProfile> {
  const model = await loadProfile(file, { sourceMaps: true, thread: 'main' });
  const v8 = await attachV8(model, file, undefined).catch(() => undefined);
  const { hotspots } = rankThread(model, 50, 'main');
  annotateHotspots(hotspots, model, v8?.v8Functions);
  return loadedFromAnalysis(file, model, hotspots, v8?.v8Functions);
}
