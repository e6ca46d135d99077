/**
 * The flame chart's run list: consecutive samples in the same frame merged into one run, times as the
 * model counts them (sample i lasts until sample i+1 arrives; the last one until endTime; negative gaps
 * count as 0). Zero-length samples are skipped. Bounded in size: past `maxRuns`, the timeline is
 * resampled at a fixed resolution (each slot takes the frame of the sample covering its centre) — a
 * zoomed-out chart draws one pixel per slot anyway. Streams over the samples: no per-sample arrays, and
 * usually a little over one pass (the exact attempt stops at the first run past maxRuns).
 */
import type { ProfileModel } from '../profile/types';
import type { FlameTimeline } from '../../shared/flame/payload';

/** 100 000 runs: 0.8 MB in a report, and 30× zoom headroom on a 3 000-pixel-wide flame chart. */
export const DEFAULT_MAX_RUNS = 100_000;

/**
 * Part of a model's samples drawn on their own: one thread of a model that merges several (its samples
 * are one run of the model's, profile/threads.ts). Its last sample lasts `lastUs` (until the thread's
 * end), its frames are `nodeToFrame` minus `frameOffset` (the thread's frame, re-rooted), and its
 * length is `durationUs`.
 */
export interface SampleSpan {
  start: number;
  end: number;
  lastUs: number;
  frameOffset: number;
  durationUs: number;
}

/**
 * One pass over the samples (tens of millions of them in a big profile), emitting runs. Sample i lasts
 * until sample i+1 arrives; the last one until endTime (the sum of all deltas is accumulated on the way,
 * in file order, exactly as the model does). Past `maxRuns` runs it gives up and returns null: the
 * caller resamples instead.
 */
function exactRuns(model: ProfileModel, nodeToFrame: Int32Array, maxRuns: number, span?: SampleSpan): FlameTimeline | null {
  const { samples, timeDeltas, startTime, endTime } = model;
  const n = span ? span.end : samples.length;
  const from = span ? span.start : 0;
  const offset = span ? span.frameOffset : 0;
  const cap = Math.min(n - from, maxRuns);
  const frame = new Int32Array(cap);
  const startUs = new Float64Array(cap);
  let runs = 0;
  let last = -1;
  let now = 0;
  let sum = 0;
  for (let i = from; i < n; i++) {
    sum += timeDeltas[i];
    const d = i + 1 < n ? timeDeltas[i + 1] : span ? span.lastUs : endTime - (startTime + sum);
    if (d <= 0) continue;
    const f = nodeToFrame[samples[i]] - offset;
    if (f !== last) {
      if (runs === cap) return null;
      frame[runs] = f;
      startUs[runs] = now;
      runs++;
      last = f;
    }
    now += d;
  }
  return { frame: frame.subarray(0, runs), startUs: startUs.subarray(0, runs), endUs: now, resampled: false, resolutionUs: 0 };
}

export function buildTimeline(model: ProfileModel, nodeToFrame: Int32Array, maxRuns = DEFAULT_MAX_RUNS, span?: SampleSpan): FlameTimeline {
  // Most big profiles overflow maxRuns early in the samples, so trying the exact runs first is cheap.
  const exact = exactRuns(model, nodeToFrame, maxRuns, span);
  if (exact) return exact.frame.length === exact.frame.buffer.byteLength / 4 ? exact : { ...exact, frame: exact.frame.slice(), startUs: exact.startUs.slice() };
  const { samples, timeDeltas, startTime, endTime } = model;
  const n = span ? span.end : samples.length;
  const from = span ? span.start : 0;
  const offset = span ? span.frameOffset : 0;
  // The timeline's length is the model's duration: the same positive durations, summed in the same order.
  const endUs = span ? span.durationUs : model.durationUs;
  // Resample: slot s covers [s·w, (s+1)·w) and takes the frame of the sample covering its centre, i.e.
  // the slots whose centre (s + 0.5)·w lies in [now, now + d). The bound between two samples is computed
  // once: the end of one sample's slots is the start of the next's.
  const w = endUs / maxRuns;
  const slotFrame = new Int32Array(maxRuns).fill(-1);
  let now = 0;
  let sum = 0;
  let bound = Math.ceil(now / w - 0.5);
  // Dozens of samples fall between two slot centres: while a sample ends clearly before the next centre
  // (by far more than rounding error), its bound is the same and the division is skipped. Near a
  // centre the exact expression decides, so the result is the same as computing it every time.
  let safeBelow = (bound + 0.5) * w * (1 - 1e-9);
  for (let i = from; i < n; i++) {
    sum += timeDeltas[i];
    const d = i + 1 < n ? timeDeltas[i + 1] : span ? span.lastUs : endTime - (startTime + sum);
    if (d <= 0) continue;
    if (now + d < safeBelow) {
      now += d;
      continue;
    }
    const next = Math.ceil((now + d) / w - 0.5);
    const first = bound > 0 ? bound : 0;
    const end = next < maxRuns ? next : maxRuns;
    if (first < end) {
      const f = nodeToFrame[samples[i]] - offset;
      for (let s = first; s < end; s++) slotFrame[s] = f;
    }
    now += d;
    if (next !== bound) {
      bound = next;
      safeBelow = (bound + 0.5) * w * (1 - 1e-9);
    }
  }
  let count = 0;
  for (let s = 0; s < maxRuns; s++) if (slotFrame[s] >= 0 && (s === 0 || slotFrame[s] !== slotFrame[s - 1])) count++;
  const frame = new Int32Array(count);
  const startUs = new Float64Array(count);
  let r = 0;
  for (let s = 0; s < maxRuns; s++) {
    if (slotFrame[s] >= 0 && (s === 0 || slotFrame[s] !== slotFrame[s - 1])) {
      frame[r] = slotFrame[s];
      startUs[r] = s * w;
      r++;
    }
  }
  return { frame, startUs, endUs, resampled: true, resolutionUs: w };
}
