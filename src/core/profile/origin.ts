/**
 * What a model read from something other than a .cpuprofile says about where it came from: a pprof
 * profile (which producer, which sample type is shown, lines or functions only, labels, paths mapped from
 * another machine) or a 0x capture. Outputs say it, so a number is never read in the wrong unit or at a
 * finer grain than the profile has.
 */
import type { LabelBreakdown, LabelFilter } from '../pprof/labels';
import type { PathMapReport } from './pathMap';

export interface ProfileOrigin {
  format: 'pprof' | '0x';
  /** `@datadog/pprof`, `Pyroscope SDK`, `pprof-nodejs`, `Hotpath`, `0x`, or `unknown`. */
  producer: string;
  /** What the model's "µs" hold: time, allocated bytes, or object counts. */
  unit: 'us' | 'bytes' | 'objects';
  /** The sample type shown (pprof), why, and the profile's others. */
  sampleType?: { type: string; unit: string; reason: 'asked' | 'default' };
  sampleTypes?: { type: string; unit: string }[];
  /** `functions`: frames carry only their function's start line; no line-level numbers exist. */
  granularity: 'lines' | 'functions';
  /** Collection time (epoch ms) and length (ms), when the profile records them. */
  timeMs?: number;
  durationMs?: number;
  labels?: { filters: LabelFilter[]; breakdown: LabelBreakdown[]; keptSamples: number; totalSamples: number };
  paths?: PathMapReport;
  /** Data left out, and why (each also a warning). */
  skipped: { what: string; count: number }[];
}
