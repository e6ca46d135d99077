import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildAnnotations } from '../../core/annotate';
import type { Attribution } from '../../core/attribution';
import type { ProfileModel } from '../../core/profile';
import { type CancellationToken, neverCancelled } from '../../core/common/cancellation';
import { loadProfileInWorker } from './profileLoader';
import type { ThreadHotspot, ThreadPackage } from '../../core/workflow/analyze';
import type { V8FunctionSignals } from '../../core/v8/types';
import type { LoadedProfile } from '../session';
import type { EditorProfileRequest } from '../../core/workflow/editorProfile';
import type { PathMapOptions } from '../../core/profile/pathMap';

/**
 * Production profiles name another machine's paths: the workspace folders are the roots their suffixes
 * are looked up in, and `hotpath.pathMappings` (`{ "/app": "${workspaceFolder}" }`) says it outright.
 */
export function pathMapFromSettings(): PathMapOptions {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const roots = folders.map((f) => f.uri.fsPath);
  const raw = vscode.workspace.getConfiguration('hotpath').get<Record<string, string>>('pathMappings') ?? {};
  const base = roots[0] ?? process.cwd();
  const mappings = Object.entries(raw)
    .filter(([from, to]) => typeof from === 'string' && from !== '' && typeof to === 'string' && to !== '')
    .map(([from, to]) => ({ from, to: path.resolve(base, to.replace(/\$\{workspaceFolder\}/g, base)) }));
  return { roots, mappings };
}

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

/**
 * The editor's view of a profile the workflow just analysed (its model and attribution are reused, not
 * rebuilt). A run with worker threads is opened from its files instead (`loadedFromRun`), as every
 * thread together.
 */
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
 * it when a Hotpath run recorded them — read, parsed and laid out in a worker thread, never on the
 * extension host's main thread. `before`: a differential flamegraph against that profile. Errors say
 * what is wrong with the file; cancelling stops the worker.
 */
export async function loadedFromFile(file: string, options: { before?: string; diff?: EditorProfileRequest['diff']; beforeInline?: EditorProfileRequest['beforeInline']; title?: string; token?: CancellationToken; onProgress?: (stage: string, fraction: number) => void } = {}): Promise<LoadedProfile> {
  const r = await loadProfileInWorker({ file, before: options.before, diff: options.diff, beforeInline: options.beforeInline, title: options.title, maxFunctions: maxFunctions(), limit: 50, pathMap: pathMapFromSettings() }, options.token ?? neverCancelled, options.onProgress);
  return { profilePath: file, title: options.title ?? path.basename(file), hotspots: r.hotspots, packages: r.packages, v8Functions: r.v8Functions, annotations: r.annotations, payload: r.payload, ...(r.runtime ? { runtime: r.runtime } : {}), ...(r.threads ? { threads: r.threads } : {}) };
}

/**
 * A run's result in the editor: one thread's analysis is reused as it is; a run that also profiled
 * worker threads (or other processes, in script mode) is read from its saved files in the worker
 * thread, like any profile opened later, so the editor covers every thread the same way each time.
 */
export async function loadedFromRun(result: AnalysedProfile & { profilePath: string; profiles: readonly { thread: string }[] }): Promise<LoadedProfile> {
  if (result.profiles.length <= 1) return loadedFromAnalysis(result.profilePath, result);
  return loadedFromFile(result.profilePath);
}
