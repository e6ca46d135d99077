/**
 * Everything an editor shows of a .cpuprofile file, computed in one place so it can run off the
 * editor's main thread (VS Code runs it in a worker thread: src/vscode/workflow/profileWorker.ts):
 * the model, hotspots without Hotpath's own frames, V8's signals saved beside the profile, the
 * per-file annotations and the flamegraph payload (the costly parts on a big profile).
 */
import * as path from 'node:path';
import { buildAnnotations, runtimeAnnotations, type Annotations, type RuntimeFileAnnotations } from '../annotate';
import { whereLabel } from '../attribution';
import { allocationLines } from '../memory/sites';
import type { PathMapOptions } from '../profile/pathMap';
import { threadsOfFunction } from '../annotate/build';
import { boundedTextReader } from '../common/boundedRead';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import { buildDiffPayload, buildFlamePayload, type DiffOptions } from '../flame';
import { applySourceMaps, loadProfile, readSourceMapSidecar, type ProfileModel } from '../profile';
import { modelFromRaw } from '../profile/model';
import { readPadded } from '../profile/read';
import { scanProfile } from '../profile/scanner';
import { ALL_THREADS, mergedThreadModel, threadsOfFunctions, threadSummary, type ThreadPart } from '../profile/threads';
import { addV8FlameExtras } from '../v8/flameExtras';
import { mergeV8Signals } from '../v8/mergeThreads';
import { readV8Sidecar } from '../v8/sidecar';
import type { V8FunctionSignals } from '../v8/types';
import type { FlamePayload } from '../../shared/flame/payload';
import { analyzeModel, annotateHotspots, attachV8, type ThreadHotspot, type ThreadPackage } from './analyze';
import { savedAttribution } from './savedAttribution';
import type { InlineSource } from '../flame/inlined';
import { threadProfilesOf, type SavedProfile } from './profileStore';

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
  // Worker threads recorded with it (a differential view compares main threads).
  const threads = request.before ? [] : await threadProfilesOf(request.file, token);
  if (threads.length > 1) return loadThreadsProfile(request, threads, title, token, progress);
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
 * inlining placement) on the merged model — plus each thread's own flamegraph to pick.
 */
async function loadThreadsProfile(request: EditorProfileRequest, threads: SavedProfile[], title: string, token: CancellationToken, progress: EditorProgress): Promise<EditorProfile> {
  const parts: ThreadPart[] = [];
  const sourceMapUrls: Record<string, string> = {};
  for (const [i, t] of threads.entries()) {
    progress(`Reading ${path.basename(t.path)} (thread ${i + 1} of ${threads.length})`, 0.05 + (0.4 * i) / threads.length);
    const { buf, length } = await readPadded(t.path, token);
    parts.push({ thread: t.thread, raw: scanProfile(buf, length, t.path), source: t.path });
    Object.assign(sourceMapUrls, await readSourceMapSidecar(t.path, token));
  }
  throwIfCancelled(token, 'Opening the profile');
  // The merge first: building a thread's own model rewrites its samples in place.
  const model = mergedThreadModel(parts, request.file);
  const perThread = parts.map((p) => modelFromRaw(p.raw, p.source, p.thread));
  const reader = boundedTextReader({ token });
  for (const m of [model, ...perThread]) await applySourceMaps(m, reader, sourceMapUrls, token);
  progress('Reading V8 signals', 0.55);
  const raws = await Promise.all(threads.map((t) => readV8Sidecar(t.path)));
  const raw = mergeV8Signals(raws);
  const v8 = raw ? await attachV8(model, request.file, raw, sourceMapUrls).catch(() => undefined) : undefined;
  progress('Placing time on lines', 0.6);
  const analysis = await analyzeModel(model, { thread: ALL_THREADS, limit: request.limit ?? 50, profilePath: request.file, v8Raw: raw, sourceMapUrls, token });
  const { hotspots, packages } = analysis;
  await annotateHotspots(hotspots, analysis.attribution, model, v8, ALL_THREADS, sourceMapUrls);
  const threadsOf = threadsOfFunctions(model);
  for (const h of hotspots) h.thread = threadSummary(threadsOfFunction(analysis.attribution, threadsOf, h.id));
  for (const p of packages) p.thread = ALL_THREADS;
  throwIfCancelled(token, 'Opening the profile');
  progress('Building annotations', 0.75);
  const annotations = buildAnnotations(model, analysis.attribution, { profilePath: request.file, hotspots, maxFunctions: request.maxFunctions, threadsOf });
  annotations.threads = threads.map((t) => t.thread);
  progress('Building the flamegraphs', 0.85);
  // No flame chart for all threads together: they ran at the same time, so there is no one time axis.
  // Inlined code in frames of its own, as the annotations place it (the merged model's own attribution).
  const payload = buildFlamePayload(model, { title: `${title} — all ${threads.length} threads`, maxTimelineRuns: 0, attribution: analysis.attribution });
  if (v8?.v8Functions?.size) addV8FlameExtras(payload, v8.v8Functions);
  const threadPayloads: NonNullable<EditorProfile['threads']> = [];
  for (const [i, m] of perThread.entries()) {
    throwIfCancelled(token, 'Opening the profile');
    const p = buildFlamePayload(m, { title: `${title} — ${threads[i].thread}` });
    const own = raws[i] ? await attachV8(m, threads[i].path, raws[i], sourceMapUrls).catch(() => undefined) : undefined;
    if (own?.v8Functions?.size) addV8FlameExtras(p, own.v8Functions);
    threadPayloads.push({ thread: threads[i].thread, payload: p });
  }
  return { model, hotspots, packages, v8Functions: v8?.v8Functions, annotations, payload, threads: threadPayloads };
}
