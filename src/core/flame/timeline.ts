/**
 * The flame chart's run list: consecutive samples in the same frame merged into one run, times as the
 * model counts them (sample i lasts until sample i+1 arrives; the last one until endTime; negative gaps
 * count as 0). Zero-length samples are skipped. Bounded in size: past `maxRuns`, the timeline is
 * resampled at a fixed resolution (each slot takes the frame of the sample covering its centre) — a
 * zoomed-out chart draws one pixel per slot anyway. Streams over the samples: no per-sample arrays.
 */
import type { ProfileModel } from '../profile/types';
import type { FlameTimeline } from '../../shared/flame/payload';

/** 100 000 runs: 0.8 MB in a report, and 30× zoom headroom on a 3 000-pixel-wide flame chart. */
export const DEFAULT_MAX_RUNS = 100_000;

/** The last sample's duration: until endTime (the others last until the next sample arrives). */
function lastDuration(model: ProfileModel): number {
  const { timeDeltas, startTime, endTime } = model;
  let sum = 0;
  for (let i = 0; i < timeDeltas.length; i++) sum += timeDeltas[i];
  return endTime - (startTime + sum);
}

export function buildTimeline(model: ProfileModel, nodeToFrame: Int32Array, maxRuns = DEFAULT_MAX_RUNS): FlameTimeline {
  const { samples, timeDeltas } = model;
  const n = samples.length;
  const lastUs = lastDuration(model);
  // Pass 1: count runs and the total length (plain loops: this runs over tens of millions of samples).
  let runs = 0;
  let last = -1;
  let endUs = 0;
  for (let i = 0; i < n; i++) {
    const d = i + 1 < n ? timeDeltas[i + 1] : lastUs;
    if (d <= 0) continue;
    endUs += d;
    const f = nodeToFrame[samples[i]];
    if (f !== last) {
      runs++;
      last = f;
    }
  }
  if (runs <= maxRuns) {
    const frame = new Int32Array(runs);
    const startUs = new Float64Array(runs);
    let r = 0;
    let now = 0;
    last = -1;
    for (let i = 0; i < n; i++) {
      const d = i + 1 < n ? timeDeltas[i + 1] : lastUs;
      if (d <= 0) continue;
      const f = nodeToFrame[samples[i]];
      if (f !== last) {
        frame[r] = f;
        startUs[r] = now;
        r++;
        last = f;
      }
      now += d;
    }
    return { frame, startUs, endUs, resampled: false, resolutionUs: 0 };
  }
  // Resample: slot s covers [s·w, (s+1)·w) and takes the frame of the sample covering its centre.
  const w = endUs / maxRuns;
  const slotFrame = new Int32Array(maxRuns).fill(-1);
  let now = 0;
  for (let i = 0; i < n; i++) {
    const d = i + 1 < n ? timeDeltas[i + 1] : lastUs;
    if (d <= 0) continue;
    // Slots whose centre (s + 0.5)·w lies in [now, now + d).
    const first = Math.max(0, Math.ceil(now / w - 0.5));
    const end = Math.min(maxRuns, Math.ceil((now + d) / w - 0.5));
    if (first < end) {
      const f = nodeToFrame[samples[i]];
      for (let s = first; s < end; s++) slotFrame[s] = f;
    }
    now += d;
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
