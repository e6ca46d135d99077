/**
 * A run's threads (the main thread and its worker threads, listed in `<profile>.threads.json`) analysed
 * as one profile, as the editor shows them: every thread in one model (profile/threads.ts), attributed
 * with V8's signals of every isolate (the inlining that places a worker's time), and which threads each
 * function ran in. VS Code (editorProfile.ts) and the agents' read tools both start from this, so an
 * agent reads the same rows and shares as the person looking at the editor.
 */
import * as path from 'node:path';
import { threadsOfFunction } from '../annotate/build';
import { boundedTextReader } from '../common/boundedRead';
import { type CancellationToken, throwIfCancelled } from '../common/cancellation';
import { applySourceMaps, readSourceMapSidecar, type ProfileModel } from '../profile';
import { modelFromRaw } from '../profile/model';
import { readPadded } from '../profile/read';
import { scanProfile } from '../profile/scanner';
import { ALL_THREADS, mergedThreadModel, threadsOfFunctions, threadSummary, type ThreadPart } from '../profile/threads';
import { mergeV8Signals } from '../v8/mergeThreads';
import { readV8Sidecar } from '../v8/sidecar';
import type { V8Collection, V8FunctionSignals, V8RawSignals } from '../v8/types';
import { analyzeModel, annotateHotspots, attachV8, type ThreadAnalysis } from './analyze';
import type { SavedProfile } from './profileStore';

export interface ThreadsAnalysis {
  /** Every thread in one model; its 100% is the threads' profiled time added up. */
  model: ProfileModel;
  /** Each thread's own model (main first), for a flamegraph per thread. */
  perThread: ProfileModel[];
  analysis: ThreadAnalysis;
  v8?: V8Collection;
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  /** Each thread's own V8 signals (main first), and the runtime source maps of them all. */
  raws: Array<V8RawSignals | undefined>;
  sourceMapUrls: Record<string, string>;
  /** The thread labels each model function ran in. */
  threadsOf: Map<number, string[]>;
  threads: string[];
}

/** The threads a function of the attribution ran in (its own frames and those it ran inlined in), main first. */
export function threadsOfAttributed(t: Pick<ThreadsAnalysis, 'analysis' | 'threadsOf'>, id: number): string[] {
  return id >= 0 ? threadsOfFunction(t.analysis.attribution, t.threadsOf, id) : [];
}

export async function analyzeThreads(file: string, threads: SavedProfile[], options: { limit: number; token: CancellationToken; progress?: (stage: string, fraction: number) => void }): Promise<ThreadsAnalysis> {
  const { token } = options;
  const progress = options.progress ?? (() => {});
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
  const model = mergedThreadModel(parts, file);
  const perThread = parts.map((p) => modelFromRaw(p.raw, p.source, p.thread));
  const reader = boundedTextReader({ token });
  for (const m of [model, ...perThread]) await applySourceMaps(m, reader, sourceMapUrls, token);
  progress('Reading V8 signals', 0.55);
  const raws = await Promise.all(threads.map((t) => readV8Sidecar(t.path)));
  const raw = mergeV8Signals(raws);
  const v8 = raw ? await attachV8(model, file, raw, sourceMapUrls).catch(() => undefined) : undefined;
  progress('Placing time on lines', 0.6);
  const analysis = await analyzeModel(model, { thread: ALL_THREADS, limit: options.limit, profilePath: file, v8Raw: raw, sourceMapUrls, token });
  annotateHotspots(analysis.hotspots, analysis.attribution, v8?.v8Functions, ALL_THREADS);
  const threadsOf = threadsOfFunctions(model);
  const result: ThreadsAnalysis = { model, perThread, analysis, v8: v8?.v8, v8Functions: v8?.v8Functions, raws, sourceMapUrls, threadsOf, threads: threads.map((t) => t.thread) };
  for (const h of analysis.hotspots) h.thread = threadSummary(threadsOfAttributed(result, h.id));
  for (const p of analysis.packages) p.thread = ALL_THREADS;
  return result;
}
