/**
 * Everything an editor shows of a .cpuprofile file, computed in one place so it can run off the
 * editor's main thread (VS Code runs it in a worker thread: src/vscode/workflow/profileWorker.ts):
 * the model, hotspots without Hotpath's own frames, V8's signals saved beside the profile, the
 * per-file annotations and the flamegraph payload (the costly parts on a big profile).
 */
import * as path from 'node:path';
import { buildAnnotations, runtimeAnnotations, type Annotations, type RuntimeFileAnnotations } from '../annotate';
import { attributeProfile, whereLabel } from '../attribution';
import { allocationLines } from '../memory/sites';
import type { PathMapOptions } from '../profile/pathMap';
import { boundedTextReader } from '../common/boundedRead';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import { buildDiffPayload, buildFlamePayload, type DiffOptions } from '../flame';
import { applySourceMaps, loadProfile, readSourceMapSidecar, type ProfileModel } from '../profile';
import { modelFromRaw } from '../profile/model';
import { readPadded } from '../profile/read';
import { scanProfile } from '../profile/scanner';
import { addV8FlameExtras } from '../v8/flameExtras';
import { mergeV8Signals } from '../v8/mergeThreads';
import { readV8Sidecar } from '../v8/sidecar';
import type { V8FunctionSignals } from '../v8/types';
import type { FlamePayload } from '../../shared/flame/payload';
import { analyzeModel, annotateHotspots, attachV8, type ThreadHotspot, type ThreadPackage } from './analyze';
import { savedAttribution } from './savedAttribution';
import type { InlineSource } from '../flame/inlined';
import { threadProfilesOf, type SavedProfile } from './profileStore';
import { analyzeThreads, loadThreads, threadsFlame } from './threadsProfile';

export interface EditorProfileRequest {
  file: string;
  /** Differential view: the profile this one is compared with. */
  before?: string;
  /** How a comparison's two sides are named and rooted (a worktree and the working tree), so user files match. */
  diff?: Pick<DiffOptions, 'beforeTitle' | 'beforeRoot' | 'afterRoot' | 'sides'>;
  /**
   * How the older profile's inlined code was placed when it was analysed (a comparison's side A): its
   * sources may be gone since (a temporary worktree). Read from its sources when absent.
   */
  beforeInline?: InlineSource;
  /** The flamegraph's title; the file name when absent. */
  title?: string;
  maxFunctions: number;
  limit?: number;
  /** pprof, 0x: another machine's paths → the workspace folders (`hotpath.pathMappings`). */
  pathMap?: PathMapOptions;
  /** pprof: the sample type to show (default CPU, else wall). */
  sampleType?: string;
}

export interface EditorProfile {
  model: ProfileModel;
  hotspots: ThreadHotspot[];
  /** Per npm package totals (the Hotspots view's dependency group). */
  packages: ThreadPackage[];
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  annotations: Annotations;
  /** The flamegraph, ready to send (differential when `before` was given). */
  payload: FlamePayload;
  before?: ProfileModel;
  /** A heap profile (pprof): its allocations as allocation labels, instead of CPU annotations. */
  runtime?: Map<string, RuntimeFileAnnotations>;
  /**
   * A profile recorded with worker threads: each thread's own flamegraph (main first), to pick one in
   * the flamegraph; `payload` then merges them all (and the numbers above cover every thread).
   */
  threads?: Array<{ thread: string; payload: FlamePayload }>;
}

export type EditorProgress = (stage: string, fraction: number) => void;

export async function loadEditorProfile(request: EditorProfileRequest, token: CancellationToken = neverCancelled, progress: EditorProgress = () => {}): Promise<EditorProfile> {
  const title = request.title ?? path.basename(request.file);
  // Worker threads recorded with it: all of them, in the editor and the flamegraph (a differential view
  // compares every thread of both sides when either side has them).
  const threads = await threadProfilesOf(request.file, token);
  const beforeThreads = request.before ? await threadProfilesOf(request.before, token) : [];
  // (A side in another format — pprof, 0x — is compared as before, main threads: thread profiles are .cpuprofile files.)
  const cpuprofiles = /\.cpuprofile$/i.test(request.file) && /\.cpuprofile$/i.test(request.before ?? '');
  if (request.before && cpuprofiles && (threads.length > 1 || beforeThreads.length > 1)) return loadThreadsDiff(request, { after: threads, before: beforeThreads }, title, token, progress);
  if (!request.before && threads.length > 1) return loadThreadsProfile(request, threads, title, token, progress);
  progress(`Reading ${title}`, 0.05);
  const read = { pathMap: request.pathMap, sampleType: request.sampleType };
  const model = await loadProfile(request.file, { sourceMaps: true, thread: 'main', token, ...read });
  throwIfCancelled(token, 'Opening the profile');
  progress('Reading V8 signals', 0.55);
  const v8 = await attachV8(model, request.file, undefined).catch(() => undefined);
  progress('Placing time on lines', 0.6);
  // Attribution reads the hot functions' sources (bounded, cancellable): call-site lines, inlined code
  // placed in its own file, own cost. Hotpath's own frames are left out of the rankings.
  const analysis = await analyzeModel(model, { thread: 'main', limit: request.limit ?? 50, profilePath: request.file, v8Raw: v8?.raw, token });
  const { hotspots, packages } = analysis;
  await annotateHotspots(hotspots, analysis.attribution, model, v8);
  throwIfCancelled(token, 'Opening the profile');
  progress('Building annotations', 0.75);
  // A heap profile is in bytes: allocation labels (as `--memory` paints them), never CPU time labels.
  const heap = model.origin !== undefined && model.origin.unit !== 'us';
  const annotations = heap
    ? { profilePath: request.file, durationMs: 0, sampleCount: model.sampleCount, files: new Map() }
    : buildAnnotations(model, analysis.attribution, { profilePath: request.file, hotspots, maxFunctions: request.maxFunctions });
  const runtime = heap && model.origin?.unit === 'bytes'
    ? runtimeAnnotations({ allocations: allocationLines(model, analysis.attribution, null, { where: (id) => whereLabel(analysis.attribution.functions[id]) }) })
    : undefined;
  let before: ProfileModel | undefined;
  if (request.before) {
    progress(`Reading ${path.basename(request.before)}`, 0.8);
    before = await loadProfile(request.before, { sourceMaps: true, thread: 'main', token, ...read });
    if ((before.origin?.unit ?? 'us') !== (model.origin?.unit ?? 'us')) {
      throw new HotpathError(ErrorCode.InvalidOption, `${path.basename(request.before)} and ${path.basename(request.file)} measure different things (${before.origin?.unit ?? 'time'} and ${model.origin?.unit ?? 'time'}): compare a CPU or wall profile with another, or two heap profiles.`);
    }
  }
  throwIfCancelled(token, 'Opening the profile');
  progress('Building the flamegraph', 0.9);
  // Inlined code in frames of its own, as the annotations place it (the older side by its own attribution).
  const attribution = analysis.attribution;
  const payload = before
    ? buildDiffPayload(before, model, { title, beforeTitle: path.basename(request.before!), ...request.diff, attribution, beforeAttribution: request.beforeInline ?? await savedAttribution(before, request.before!, token) })
    : buildFlamePayload(model, { title, attribution });
  if (!before && v8?.v8Functions?.size) addV8FlameExtras(payload, v8.v8Functions);
  return { model, hotspots: heap ? [] : hotspots, packages: heap ? [] : packages, v8Functions: v8?.v8Functions, annotations, payload, ...(before ? { before } : {}), ...(runtime ? { runtime } : {}) };
}

/**
 * A profile recorded with worker threads: every thread in one model (profile/threads.ts), analysed as
 * one profile — the CLI's per-thread analysis (attribution, V8's signals of every isolate for the
 * inlining placement) on the merged model — plus each thread's own flamegraph to pick, cut from the
 * merged one so it shows the same placement of inlined code (workflow/threadsProfile.ts).
 */
async function loadThreadsProfile(request: EditorProfileRequest, threads: SavedProfile[], title: string, token: CancellationToken, progress: EditorProgress): Promise<EditorProfile> {
  const loaded = await loadThreads(threads, request.file, token, progress);
  throwIfCancelled(token, 'Opening the profile');
  progress('Placing time on lines', 0.6);
  const { model, analysis, v8Functions, threadsOf } = await analyzeThreads(loaded, { limit: request.limit ?? 50, profilePath: request.file, token });
  const { hotspots, packages } = analysis;
  throwIfCancelled(token, 'Opening the profile');
  progress('Building annotations', 0.75);
  const annotations = buildAnnotations(model, analysis.attribution, { profilePath: request.file, hotspots, maxFunctions: request.maxFunctions, threadsOf });
  annotations.threads = threads.map((t) => t.thread);
  progress('Building the flamegraphs', 0.85);
  // Inlined code in frames of its own, as the annotations place it (the merged model's own attribution),
  // in the merged flamegraph and in each thread's.
  const flame = await threadsFlame(loaded, { title, attribution: analysis.attribution, v8Functions, token });
  return { model, hotspots, packages, v8Functions, annotations, payload: flame.all, threads: flame.threads };
}

/**
 * A differential view where a side ran worker threads: every thread of each side as one profile (a side
 * without workers is its main thread alone), thread frames matched by their role — worker threads of one
 * script are interchangeable between runs — so the work a pool does is in the diff. The newer profile's
 * threads are analysed for the editor, as when it is opened alone; the older side's inlined code is
 * split as its run placed it (`beforeInline`) or from what that run saved beside its profiles.
 */
async function loadThreadsDiff(request: EditorProfileRequest, files: { after: SavedProfile[]; before: SavedProfile[] }, title: string, token: CancellationToken, progress: EditorProgress): Promise<EditorProfile> {
  const beforePath = request.before!;
  const { after, before } = files;
  const loaded = await loadThreads(after, request.file, token, (stage, f) => progress(stage, f / 2));
  progress('Placing time on lines', 0.45);
  const { model, analysis, v8Functions, threadsOf } = await analyzeThreads(loaded, { limit: request.limit ?? 50, profilePath: request.file, token });
  const annotations = buildAnnotations(model, analysis.attribution, { profilePath: request.file, hotspots: analysis.hotspots, maxFunctions: request.maxFunctions, threadsOf });
  annotations.threads = after.map((t) => t.thread);
  const older = await loadThreads(before, beforePath, token, (stage, f) => progress(stage, 0.6 + f / 4));
  throwIfCancelled(token, 'Opening the profile');
  progress('Building the flamegraph', 0.9);
  const beforeAttribution = request.beforeInline ?? await attributeProfile(older.model, { v8: older.raw, sourceMapUrls: older.sourceMapUrls, token });
  const sides = request.diff?.sides
    ? { before: { ...request.diff.sides.before, threads: before.map((t) => t.thread) }, after: { ...request.diff.sides.after, threads: after.map((t) => t.thread) } }
    : undefined;
  const payload = buildDiffPayload(older.model, model, {
    title: `${title} — all ${after.length} thread${after.length > 1 ? 's' : ''}`, ...request.diff,
    beforeTitle: `${request.diff?.beforeTitle ?? path.basename(beforePath)} — all ${before.length} thread${before.length > 1 ? 's' : ''}`,
    ...(sides ? { sides } : {}), attribution: analysis.attribution, beforeAttribution,
  });
  return { model, hotspots: analysis.hotspots, packages: analysis.packages, v8Functions, annotations, payload, before: older.model };
}
