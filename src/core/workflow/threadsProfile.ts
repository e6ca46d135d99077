/**
 * A run's threads as one profile, read and analysed once for every surface that shows them together —
 * the editor (line heat, CodeLens, Hotspots view, the flamegraph and its thread picker), the CLI's
 * flamegraph HTML, and a comparison's differential flamegraph when a side ran worker threads: every
 * thread in one model (profile/threads.ts), V8's signals of every isolate merged for the inlining
 * placement, one attribution. Each thread's own flamegraph is cut from the merged one (flame/threads.ts),
 * with its own isolate's tiers.
 */
import * as path from 'node:path';
import { boundedTextReader } from '../common/boundedRead';
import { type CancellationToken, neverCancelled, throwIfCancelled } from '../common/cancellation';
import { threadsFlamePayloads, signalsForThread } from '../flame/threads';
import type { InlineSource } from '../flame/inlined';
import { applySourceMaps, readSourceMapSidecar, type ProfileModel } from '../profile';
import { readPadded } from '../profile/read';
import { scanProfile } from '../profile/scanner';
import { ALL_THREADS, mergedThreads, threadsOfFunctions, threadSummary, type ThreadPart, type ThreadSpan } from '../profile/threads';
import { threadsOfFunction } from '../annotate/build';
import { addV8FlameExtras } from '../v8/flameExtras';
import { joinV8Signals } from '../v8/join';
import { mergeV8Signals } from '../v8/mergeThreads';
import { readV8Sidecar } from '../v8/sidecar';
import type { V8Collection, V8FunctionSignals, V8RawSignals } from '../v8/types';
import type { FlamePayload } from '../../shared/flame/payload';
import { analyzeModel, annotateHotspots, attachV8, type ThreadAnalysis } from './analyze';
import type { SavedProfile } from './profileStore';

export type ThreadsProgress = (stage: string, fraction: number) => void;

/** A run's thread profiles read into one model: where each thread is, and what was saved beside them. */
export interface LoadedThreads {
  model: ProfileModel;
  spans: ThreadSpan[];
  /** Every thread's runtime source-map URLs. */
  sourceMapUrls: Record<string, string>;
  /** Each thread's isolate's V8 signals (its sidecar), in `spans` order. */
  raws: Array<V8RawSignals | undefined>;
  /** All of them as one set, for the merged model (inlining facts of every isolate). */
  raw?: V8RawSignals;
}

/** Reads, merges and source-maps the thread profiles of one run (main first). `source` names the model (the main profile). */
export async function loadThreads(threads: ReadonlyArray<Pick<SavedProfile, 'thread' | 'path'>>, source: string, token: CancellationToken = neverCancelled, progress: ThreadsProgress = () => {}): Promise<LoadedThreads> {
  const parts: ThreadPart[] = [];
  const sourceMapUrls: Record<string, string> = {};
  for (const [i, t] of threads.entries()) {
    progress(`Reading ${path.basename(t.path)} (thread ${i + 1} of ${threads.length})`, 0.05 + (0.4 * i) / threads.length);
    const { buf, length } = await readPadded(t.path, token);
    parts.push({ thread: t.thread, raw: scanProfile(buf, length, t.path), source: t.path });
    Object.assign(sourceMapUrls, await readSourceMapSidecar(t.path, token));
  }
  throwIfCancelled(token, 'Opening the profile');
  const { model, spans } = mergedThreads(parts, source);
  await applySourceMaps(model, boundedTextReader({ token }), sourceMapUrls, token);
  const raws = await Promise.all(threads.map((t) => readV8Sidecar(t.path)));
  return { model, spans, sourceMapUrls, raws, raw: mergeV8Signals(raws) };
}

export interface AnalysedThreads extends LoadedThreads {
  /** The merged model's analysis (thread `all threads`): hotspots name the threads each function ran in. */
  analysis: ThreadAnalysis;
  /** V8's signals of the merged model: per isolate as collected, and per function of the model. */
  v8?: V8Collection;
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  /** Which threads each function of the merged model ran in. */
  threadsOf: Map<number, string[]>;
}

/** Attribution and rankings of the merged model, with V8's view of each function (every isolate's facts). */
export async function analyzeThreads(loaded: LoadedThreads, options: { limit: number; profilePath: string; token?: CancellationToken }): Promise<AnalysedThreads> {
  const { model, raw, sourceMapUrls } = loaded;
  const v8 = raw ? await attachV8(model, options.profilePath, raw, sourceMapUrls).catch(() => undefined) : undefined;
  const analysis = await analyzeModel(model, { thread: ALL_THREADS, limit: options.limit, profilePath: options.profilePath, v8Raw: raw, sourceMapUrls, token: options.token });
  await annotateHotspots(analysis.hotspots, analysis.attribution, model, v8, ALL_THREADS, sourceMapUrls);
  const threadsOf = threadsOfFunctions(model);
  for (const h of analysis.hotspots) h.thread = threadSummary(threadsOfFunction(analysis.attribution, threadsOf, h.id));
  for (const p of analysis.packages) p.thread = ALL_THREADS;
  return { ...loaded, analysis, v8: v8?.v8, v8Functions: v8?.v8Functions, threadsOf };
}

/**
 * The flamegraph of every thread together and each thread's own, inlined code split by `attribution`
 * (the merged model's: what the editor shows); each thread's frames with its own isolate's V8 tiers.
 */
export async function threadsFlame(loaded: LoadedThreads, options: { title: string; attribution?: InlineSource; v8Functions?: ReadonlyMap<number, V8FunctionSignals>; token?: CancellationToken }): Promise<{ all: FlamePayload; threads: Array<{ thread: string; payload: FlamePayload }> }> {
  const { all, threads } = threadsFlamePayloads(loaded.model, loaded.spans, { title: options.title, attribution: options.attribution });
  if (options.v8Functions?.size) addV8FlameExtras(all, options.v8Functions);
  const out: Array<{ thread: string; payload: FlamePayload }> = [];
  for (const [i, t] of threads.entries()) {
    throwIfCancelled(options.token ?? neverCancelled, 'Opening the profile');
    const own = loaded.raws[i];
    if (own) {
      // This isolate's tiers: its own signals joined to the merged model, then keyed like the thread's table.
      const joined = await joinV8Signals(loaded.model, own, { sourceMapUrls: loaded.sourceMapUrls }).catch(() => undefined);
      if (joined?.functions.size) addV8FlameExtras(t.payload, signalsForThread(joined.functions, t.functionOf));
    }
    out.push({ thread: t.thread, payload: t.payload });
  }
  return { all, threads: out };
}
