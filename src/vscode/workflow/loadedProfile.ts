import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildAnnotations } from '../../core/annotate';
import type { Attribution } from '../../core/attribution';
import { loadProfile, type ProfileModel } from '../../core/profile';
import { analyzeModel, annotateHotspots, attachV8, type ThreadHotspot, type ThreadPackage } from '../../core/workflow/analyze';
import type { V8FunctionSignals } from '../../core/v8/types';
import type { LoadedProfile } from '../session';

function maxFunctions(): number {
  return vscode.workspace.getConfiguration('hotpath.annotations').get<number>('maxFunctions') ?? 15;
}

export interface AnalysedProfile {
  model: ProfileModel;
  attribution: Attribution;
  hotspots: ThreadHotspot[];
  packages: ThreadPackage[];
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
}

/** The editor's view of a profile the workflow just analysed (its model and attribution are reused, not rebuilt). */
export function loadedFromAnalysis(profilePath: string, analysed: AnalysedProfile): LoadedProfile {
  const main = analysed.hotspots.filter((h) => h.thread === 'main');
  return {
    profilePath, title: path.basename(profilePath), model: analysed.model, attribution: analysed.attribution,
    hotspots: analysed.hotspots, packages: analysed.packages.filter((p) => p.thread === 'main'), v8Functions: analysed.v8Functions,
    annotations: buildAnnotations(analysed.model, analysed.attribution, { profilePath, hotspots: main, maxFunctions: maxFunctions() }),
  };
}

/**
 * A .cpuprofile from disk (any format the core reads), source-mapped, with the V8 signals saved beside
 * it when a Hotpath run recorded them, and attributed to lines. Errors say what is wrong with the file.
 */
export async function loadedFromFile(file: string): Promise<LoadedProfile> {
  const model = await loadProfile(file, { sourceMaps: true, thread: 'main' });
  const v8 = await attachV8(model, file, undefined).catch(() => undefined);
  const analysis = await analyzeModel(model, { thread: 'main', limit: 50, profilePath: file, v8Raw: v8?.raw });
  annotateHotspots(analysis.hotspots, analysis.attribution, v8?.v8Functions);
  return loadedFromAnalysis(file, { model, attribution: analysis.attribution, hotspots: analysis.hotspots, packages: analysis.packages, v8Functions: v8?.v8Functions });
}
