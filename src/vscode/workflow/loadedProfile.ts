import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildAnnotations } from '../../core/annotate';
import { loadProfile, rankHotspots, type ProfileModel } from '../../core/profile';
import { annotateHotspots, attachV8, type ThreadHotspot } from '../../core/workflow/analyze';
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

/** The editor's view of a model already in memory (a comparison's side), ranked and with its V8 signals. */
export function loadedFromModel(profilePath: string, model: ProfileModel, v8Functions?: ReadonlyMap<number, V8FunctionSignals>): LoadedProfile {
  const hotspots: ThreadHotspot[] = rankHotspots(model, { limit: 50 }).map((h) => ({ ...h, thread: 'main' }));
  annotateHotspots(hotspots, model, v8Functions);
  return loadedFromAnalysis(profilePath, model, hotspots, v8Functions);
}

/**
 * A .cpuprofile from disk (any format the core reads), source-mapped, with the V8 signals saved beside
 * it when a Hotpath run recorded them. Errors say what is wrong with the file.
 */
export async function loadedFromFile(file: string): Promise<LoadedProfile> {
  const model = await loadProfile(file, { sourceMaps: true, thread: 'main' });
  const v8 = await attachV8(model, file, undefined).catch(() => undefined);
  return loadedFromModel(file, model, v8?.v8Functions);
}
