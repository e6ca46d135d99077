/**
 * Which of a profile's sample types is shown, and in what unit the model holds it. A CPU profile model
 * holds µs; an allocation model bytes (as V8's sampling heap profile does, see memory/heapProfile.ts);
 * object counts are a third unit. Sample counts become time through the profile's period.
 */
import { invalidOption } from '../common/errors';
import type { DecodedPprof } from './decode';
import { pprofInvalid } from './decode';

export type ModelUnit = 'us' | 'bytes' | 'objects';

export interface SampleTypeName {
  type: string;
  unit: string;
}

export interface ChosenSampleType {
  index: number;
  type: string;
  unit: string;
  /** Multiply a value by this to get the model's unit. */
  scale: number;
  modelUnit: ModelUnit;
  /** Why this type: `--sample-type`, the default order, or the profile's default_sample_type. */
  reason: 'asked' | 'default';
  /** Index of a `samples`/`sample` count type, or -1: the real number of samples behind each value. */
  countIndex: number;
}

const TIME_SCALE: Record<string, number> = { nanoseconds: 1e-3, ns: 1e-3, microseconds: 1, us: 1, milliseconds: 1e3, ms: 1e3, seconds: 1e6, s: 1e6 };
const COUNT_TYPES = new Set(['samples', 'sample']);

export function sampleTypeNames(d: DecodedPprof): SampleTypeName[] {
  return d.sampleTypes.map((t, i) => ({ type: d.string(t.type, `sample_type[${i}]`), unit: d.string(t.unit, `sample_type[${i}]`) }));
}

const describe = (names: SampleTypeName[]) => names.map((n) => `${n.type} (${n.unit})`).join(', ');

/** How values of sample type `i` become the model's unit; null when they cannot (a count without a time period). */
function scaleOf(d: DecodedPprof, names: SampleTypeName[], i: number): { scale: number; modelUnit: ModelUnit } | null {
  const { type, unit } = names[i];
  const time = TIME_SCALE[unit];
  if (time !== undefined) return { scale: time, modelUnit: 'us' };
  if (unit === 'bytes') return { scale: 1, modelUnit: 'bytes' };
  if (unit === 'count' && /objects$/.test(type)) return { scale: 1, modelUnit: 'objects' };
  if (unit === 'count' && COUNT_TYPES.has(type) && d.periodType && d.period > 0) {
    const periodUnit = d.string(d.periodType.unit, 'period_type');
    const per = TIME_SCALE[periodUnit];
    if (per !== undefined) return { scale: d.period * per, modelUnit: 'us' };
  }
  return null;
}

/**
 * `--sample-type` when given (by type name, e.g. `cpu`, `wall`, `alloc_space`); else CPU time, then wall
 * time, then the profile's default_sample_type, then the last type that has a usable unit (pprof's own
 * default is the last type).
 */
export function chooseSampleType(d: DecodedPprof, asked?: string): ChosenSampleType {
  const names = sampleTypeNames(d);
  if (names.length === 0) throw pprofInvalid(d.source, 'it declares no sample types, so its values mean nothing');
  const countIndex = names.findIndex((n) => COUNT_TYPES.has(n.type) && n.unit === 'count');
  const pick = (index: number, reason: ChosenSampleType['reason']): ChosenSampleType | null => {
    const scale = scaleOf(d, names, index);
    return scale ? { index, ...names[index], ...scale, reason, countIndex } : null;
  };
  if (asked !== undefined) {
    const index = names.findIndex((n) => n.type === asked);
    if (index < 0) throw invalidOption(`--sample-type ${asked}: ${d.source} has no such sample type. It has: ${describe(names)}.`);
    const chosen = pick(index, 'asked');
    if (!chosen) throw invalidOption(`--sample-type ${asked}: its unit (${names[index].unit}) cannot be shown${names[index].unit === 'count' ? ' (a count, and the profile gives no time period to turn it into time)' : ''}. Choose one of: ${describe(names)}.`);
    return chosen;
  }
  for (const want of ['cpu', 'wall']) {
    const index = names.findIndex((n) => n.type === want);
    const chosen = index >= 0 ? pick(index, 'default') : null;
    if (chosen) return chosen;
  }
  if (d.defaultSampleType > 0) {
    const want = d.string(d.defaultSampleType, 'default_sample_type');
    const index = names.findIndex((n) => n.type === want);
    const chosen = index >= 0 ? pick(index, 'default') : null;
    if (chosen) return chosen;
  }
  // Bytes before object counts (heap profiles list objects first), then anything usable, last first.
  for (let i = names.length - 1; i >= 0; i--) if (names[i].unit === 'bytes') return pick(i, 'default')!;
  for (let i = names.length - 1; i >= 0; i--) {
    const chosen = pick(i, 'default');
    if (chosen) return chosen;
  }
  throw pprofInvalid(d.source, `none of its sample types has a unit Hotpath can show (${describe(names)})`, 'Hotpath shows time (nanoseconds, microseconds…), bytes and object counts.');
}
