/**
 * Synthetic pprof profiles for tests, written with pprof-format (the encoder the export uses): frames by
 * name, file and line, stacks leaf first, values per sample type, labels.
 */
import { gzipSync } from 'node:zlib';
import { Function as PFunction, Label, Line, Location, Profile, Sample, StringTable, ValueType } from 'pprof-format';

export interface FrameSpec { name: string; file?: string; line?: number; startLine?: number }
export interface SampleSpec { stack: FrameSpec[]; values: number[]; labels?: Record<string, string | number> }
export interface ProfileSpec {
  types: [string, string][];
  samples: SampleSpec[];
  period?: [string, string, number];
  defaultType?: string;
  comments?: string[];
  timeNanos?: number;
}

export function buildPprof(spec: ProfileSpec): Profile {
  const st = new StringTable();
  const functions: PFunction[] = [];
  const locations: Location[] = [];
  const fnIds = new Map<string, number>();
  const locIds = new Map<string, number>();
  const fnOf = (f: FrameSpec) => {
    const key = `${f.name}\n${f.file ?? ''}\n${f.startLine ?? 0}`;
    let id = fnIds.get(key);
    if (id === undefined) {
      id = functions.length + 1;
      fnIds.set(key, id);
      functions.push(new PFunction({ id, name: st.dedup(f.name), systemName: st.dedup(f.name), filename: st.dedup(f.file ?? ''), startLine: f.startLine ?? 0 }));
    }
    return id;
  };
  const locOf = (f: FrameSpec) => {
    const fn = fnOf(f);
    const key = `${fn}:${f.line ?? 0}`;
    let id = locIds.get(key);
    if (id === undefined) {
      id = locations.length + 1;
      locIds.set(key, id);
      locations.push(new Location({ id, line: [new Line({ functionId: fn, line: f.line ?? 0 })] }));
    }
    return id;
  };
  const samples = spec.samples.map((s) => new Sample({
    locationId: s.stack.map(locOf),
    value: s.values,
    label: Object.entries(s.labels ?? {}).map(([k, v]) => (typeof v === 'number' ? new Label({ key: st.dedup(k), num: v }) : new Label({ key: st.dedup(k), str: st.dedup(v) }))),
  }));
  return new Profile({
    sampleType: spec.types.map(([t, u]) => new ValueType({ type: st.dedup(t), unit: st.dedup(u) })),
    sample: samples, location: locations, function: functions, stringTable: st,
    ...(spec.period ? { periodType: new ValueType({ type: st.dedup(spec.period[0]), unit: st.dedup(spec.period[1]) }), period: spec.period[2] } : {}),
    ...(spec.defaultType ? { defaultSampleType: st.dedup(spec.defaultType) } : {}),
    comment: (spec.comments ?? []).map((c) => st.dedup(c)),
    timeNanos: spec.timeNanos ?? 0,
  });
}

export const encodePprof = (spec: ProfileSpec): Uint8Array => buildPprof(spec).encode();
export const gzipPprof = (spec: ProfileSpec): Buffer => gzipSync(encodePprof(spec));
