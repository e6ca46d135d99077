/**
 * A strict, single-pass decoder of pprof's profile.proto (github.com/google/pprof/proto/profile.proto)
 * into typed columns.
 *
 * Why not pprof-format's `Profile.decode`: it accepts a truncated message silently (a length past the end
 * is cut to what is there), reads a negative int64 as a huge positive BigInt, builds one object per sample,
 * location and line, and decodes every string of the table eagerly, a TextDecoder each. A profile from a
 * fleet, or from anyone, must fail with "truncated at byte N" rather than show half of itself, and a string
 * table of millions of entries must cost 8 bytes an entry, not a JS string and a Map entry each (measured
 * in `npm run bench -- pprof`). Here: every length is checked against its message, varints longer than
 * 10 bytes and unknown wire types are errors, strings are offsets decoded on first use, and the work and
 * memory are linear in the input.
 */
import { ErrorCode, HotpathError } from '../common/errors';
import { IndexList, NumberList } from './lists';

export interface ValueTypeIndex {
  /** String-table indices. */
  type: number;
  unit: number;
}

export interface DecodedPprof {
  source: string;
  stringCount: number;
  /** String `i` of the table (decoded once, then cached). Throws ProfileInvalid for an index outside the table. */
  string(i: number, what: string): string;
  sampleTypes: ValueTypeIndex[];
  sampleCount: number;
  /** Per sample s: location ids `locIds[sampleLocStart[s] .. sampleLocStart[s+1])`, leaf first. */
  sampleLocStart: Int32Array;
  locIds: Int32Array;
  /** Per sample s: `values[sampleValueStart[s] .. sampleValueStart[s+1])`, one per sample type. */
  sampleValueStart: Int32Array;
  values: Float64Array;
  /** Per sample s: labels `sampleLabelStart[s] .. sampleLabelStart[s+1]` of the label columns. */
  sampleLabelStart: Int32Array;
  labelKey: Int32Array;
  /** String index of a string label; 0 (the empty string) for a numeric one. */
  labelStr: Int32Array;
  labelNum: Float64Array;
  labelNumUnit: Int32Array;
  locationCount: number;
  locationId: Float64Array;
  /** Per location l: lines `locationLineStart[l] .. locationLineStart[l+1]`; several = inlining, the last is the caller. */
  locationLineStart: Int32Array;
  lineFunction: Float64Array;
  lineLine: Float64Array;
  lineColumn: Float64Array;
  functionCount: number;
  functionId: Float64Array;
  functionName: Int32Array;
  functionSystemName: Int32Array;
  functionFilename: Int32Array;
  functionStartLine: Float64Array;
  mappingCount: number;
  timeNanos: number;
  durationNanos: number;
  periodType: ValueTypeIndex | null;
  period: number;
  comments: number[];
  /** String index of the default sample type's name; 0 when unset. */
  defaultSampleType: number;
  dropFrames: number;
  keepFrames: number;
}

const HINT = 'Open a pprof profile (`.pb.gz` / `.pprof`) as its profiler wrote it, e.g. from @datadog/pprof, the Pyroscope SDK or `go tool pprof -proto`.';

export function pprofInvalid(source: string, what: string, hint = HINT): HotpathError {
  return new HotpathError(ErrorCode.ProfileInvalid, `${source} is not a valid pprof profile: ${what}. ${hint}`, { file: source });
}

const enum Wire { Varint = 0, Fixed64 = 1, Len = 2, Fixed32 = 5 }
const TWO_32 = 4294967296;
const MAX_INDEX = 0x7fffffff;

/** Message names for error texts: where in the profile a problem was found. */
const FIELD_NAMES: Record<number, string> = {
  1: 'sample_type', 2: 'sample', 3: 'mapping', 4: 'location', 5: 'function', 6: 'string_table', 7: 'drop_frames', 8: 'keep_frames',
  9: 'time_nanos', 10: 'duration_nanos', 11: 'period_type', 12: 'period', 13: 'comment', 14: 'default_sample_type', 15: 'doc_url',
};

class Reader {
  pos = 0;
  constructor(readonly buf: Uint8Array, readonly source: string) {}

  fail(what: string): never {
    throw pprofInvalid(this.source, what);
  }

  truncated(at: number, inside: string): never {
    throw pprofInvalid(this.source, `it is truncated (ends at byte ${this.buf.length} inside ${inside}, which starts at byte ${at})`, 'The file was probably cut off while being written or copied; fetch or record it again.');
  }

  /** A varint ending before `end`, as a signed 64-bit value (exact up to 2^53). */
  varint(end: number, inside: string): number {
    const buf = this.buf;
    let p = this.pos;
    if (p >= end) this.truncated(p, inside);
    let b = buf[p++];
    if (b < 0x80) {
      this.pos = p;
      return b;
    }
    let lo = b & 0x7f;
    let shift = 7;
    // Low 28 bits in 4 bytes, then the rest into hi.
    for (; shift < 28; shift += 7) {
      if (p >= end) this.truncated(this.pos, inside);
      b = buf[p++];
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.pos = p;
        return lo >>> 0;
      }
    }
    if (p >= end) this.truncated(this.pos, inside);
    b = buf[p++];
    lo = (lo | ((b & 0x0f) << 28)) >>> 0;
    let hi = (b & 0x7f) >> 4;
    if (b >= 0x80) {
      let hiShift = 3;
      for (let n = 0; ; n++) {
        if (n >= 5) this.fail(`a number at byte ${this.pos} in ${inside} is longer than 10 bytes (malformed varint)`);
        if (p >= end) this.truncated(this.pos, inside);
        b = buf[p++];
        hi |= (b & 0x7f) << hiShift;
        hiShift += 7;
        if (b < 0x80) break;
      }
    }
    this.pos = p;
    hi >>>= 0;
    // int64 in two's complement: a set top bit is a negative number.
    return hi >= 0x80000000 ? (hi - TWO_32) * TWO_32 + lo : hi * TWO_32 + lo;
  }

  /** A length-delimited field's [start, end), checked against the enclosing message. */
  span(end: number, inside: string): [number, number] {
    const at = this.pos;
    const len = this.varint(end, inside);
    if (len < 0 || this.pos + len > end) {
      if (this.pos + len > this.buf.length || len < 0) this.truncated(at, inside);
      this.fail(`${inside} at byte ${at} claims ${len} bytes, more than the enclosing message holds`);
    }
    const start = this.pos;
    this.pos += len;
    return [start, start + len];
  }

  skip(wire: number, end: number, inside: string): void {
    switch (wire) {
      case Wire.Varint: this.varint(end, inside); return;
      case Wire.Fixed64: this.advance(8, end, inside); return;
      case Wire.Fixed32: this.advance(4, end, inside); return;
      case Wire.Len: this.span(end, inside); return;
      default: this.fail(`${inside} at byte ${this.pos} has wire type ${wire}, which profile.proto never uses (the data is damaged or not a pprof profile)`);
    }
  }

  private advance(n: number, end: number, inside: string): void {
    if (this.pos + n > end) this.truncated(this.pos, inside);
    this.pos += n;
  }

  /** A string-table index (int64 in the proto). */
  index(end: number, inside: string): number {
    const v = this.varint(end, inside);
    if (v < 0 || v > MAX_INDEX) this.fail(`${inside} names string ${v}, which no string table can hold`);
    return v;
  }

  /** Repeated scalar fields: packed (one length-delimited run) or one varint per tag. */
  repeated(wire: number, end: number, inside: string, out: NumberList | number[]): void {
    if (wire === Wire.Varint) {
      out.push(this.varint(end, inside));
      return;
    }
    if (wire !== Wire.Len) this.fail(`${inside} at byte ${this.pos} has wire type ${wire}, not a number list`);
    const [start, stop] = this.span(end, inside);
    this.pos = start;
    while (this.pos < stop) out.push(this.varint(stop, inside));
  }

  /** Location ids of a sample (uint64 in the proto; every producer numbers them from 1). Runs once per id: millions. */
  repeatedIds(wire: number, end: number, inside: string, out: IndexList): void {
    if (wire === Wire.Varint) {
      this.pushId(this.varint(end, inside), inside, out);
      return;
    }
    if (wire !== Wire.Len) this.fail(`${inside} at byte ${this.pos} has wire type ${wire}, not a number list`);
    const [start, stop] = this.span(end, inside);
    const buf = this.buf;
    this.pos = start;
    while (this.pos < stop) {
      const b = buf[this.pos];
      // Most ids fit in one byte or two.
      if (b < 0x80) {
        this.pos++;
        out.push(b);
      } else this.pushId(this.varint(stop, inside), inside, out);
    }
  }

  private pushId(v: number, inside: string, out: IndexList): void {
    if (v < 0 || v > MAX_INDEX) this.fail(`${inside} names location ${v}, an id beyond the 2^31 Hotpath reads`);
    out.push(v);
  }

  expect(wire: number, want: number, inside: string): void {
    if (wire !== want) this.fail(`${inside} at byte ${this.pos} has wire type ${wire} where profile.proto has ${want}`);
  }
}

export function decodePprof(buf: Uint8Array, source: string): DecodedPprof {
  const r = new Reader(buf, source);
  const end = buf.length;
  if (end === 0) throw pprofInvalid(source, 'it is empty');

  const strStart = new IndexList(1024);
  const strLength = new IndexList(1024);
  const sampleTypes: ValueTypeIndex[] = [];
  const sampleLocStart = new IndexList(1024);
  const locIds = new IndexList(4096);
  const sampleValueStart = new IndexList(1024);
  const values = new NumberList(2048);
  const sampleLabelStart = new IndexList(1024);
  const labelKey = new IndexList();
  const labelStr = new IndexList();
  const labelNum = new NumberList();
  const labelNumUnit = new IndexList();
  const locationId = new NumberList(1024);
  const locationLineStart = new IndexList(1024);
  const lineFunction = new NumberList(1024);
  const lineLine = new NumberList(1024);
  const lineColumn = new NumberList(1024);
  const functionId = new NumberList(1024);
  const functionName = new IndexList(1024);
  const functionSystemName = new IndexList(1024);
  const functionFilename = new IndexList(1024);
  const functionStartLine = new NumberList(1024);
  const comments: number[] = [];
  let mappingCount = 0;
  let timeNanos = 0;
  let durationNanos = 0;
  let periodType: ValueTypeIndex | null = null;
  let period = 0;
  let defaultSampleType = 0;
  let dropFrames = 0;
  let keepFrames = 0;

  const valueType = (start: number, stop: number, inside: string): ValueTypeIndex => {
    const vt = { type: 0, unit: 0 };
    r.pos = start;
    while (r.pos < stop) {
      const tag = r.varint(stop, inside);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1 || field === 2) {
        r.expect(wire, Wire.Varint, inside);
        const v = r.index(stop, inside);
        if (field === 1) vt.type = v; else vt.unit = v;
      } else r.skip(wire, stop, inside);
    }
    return vt;
  };

  const sample = (start: number, stop: number): void => {
    const inside = `sample ${sampleLocStart.length}`;
    sampleLocStart.push(locIds.length);
    sampleValueStart.push(values.length);
    sampleLabelStart.push(labelKey.length);
    r.pos = start;
    while (r.pos < stop) {
      const tag = r.varint(stop, inside);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1) r.repeatedIds(wire, stop, inside, locIds);
      else if (field === 2) r.repeated(wire, stop, inside, values);
      else if (field === 3) {
        r.expect(wire, Wire.Len, inside);
        const [ls, le] = r.span(stop, `a label of ${inside}`);
        const after = r.pos;
        label(ls, le, `a label of ${inside}`);
        r.pos = after;
      } else r.skip(wire, stop, inside);
    }
  };

  const label = (start: number, stop: number, inside: string): void => {
    let key = 0;
    let str = 0;
    let num = 0;
    let numUnit = 0;
    r.pos = start;
    while (r.pos < stop) {
      const tag = r.varint(stop, inside);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field >= 1 && field <= 4) {
        r.expect(wire, Wire.Varint, inside);
        if (field === 3) num = r.varint(stop, inside);
        else {
          const v = r.index(stop, inside);
          if (field === 1) key = v; else if (field === 2) str = v; else numUnit = v;
        }
      } else r.skip(wire, stop, inside);
    }
    labelKey.push(key);
    labelStr.push(str);
    labelNum.push(num);
    labelNumUnit.push(numUnit);
  };

  const location = (start: number, stop: number): void => {
    const inside = `location ${locationId.length}`;
    let id = 0;
    locationLineStart.push(lineFunction.length);
    r.pos = start;
    while (r.pos < stop) {
      const tag = r.varint(stop, inside);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field === 1) {
        r.expect(wire, Wire.Varint, inside);
        id = r.varint(stop, inside);
      } else if (field === 4) {
        r.expect(wire, Wire.Len, inside);
        const [ls, le] = r.span(stop, `a line of ${inside}`);
        const after = r.pos;
        line(ls, le, `a line of ${inside}`);
        r.pos = after;
      } else r.skip(wire, stop, inside);
    }
    locationId.push(id);
  };

  const line = (start: number, stop: number, inside: string): void => {
    let fn = 0;
    let ln = 0;
    let col = 0;
    r.pos = start;
    while (r.pos < stop) {
      const tag = r.varint(stop, inside);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field >= 1 && field <= 3) {
        r.expect(wire, Wire.Varint, inside);
        const v = r.varint(stop, inside);
        if (field === 1) fn = v; else if (field === 2) ln = v; else col = v;
      } else r.skip(wire, stop, inside);
    }
    lineFunction.push(fn);
    lineLine.push(ln);
    lineColumn.push(col);
  };

  const fn = (start: number, stop: number): void => {
    const inside = `function ${functionId.length}`;
    let id = 0;
    let name = 0;
    let systemName = 0;
    let filename = 0;
    let startLine = 0;
    r.pos = start;
    while (r.pos < stop) {
      const tag = r.varint(stop, inside);
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field >= 1 && field <= 5) {
        r.expect(wire, Wire.Varint, inside);
        if (field === 1) id = r.varint(stop, inside);
        else if (field === 5) startLine = r.varint(stop, inside);
        else {
          const v = r.index(stop, inside);
          if (field === 2) name = v; else if (field === 3) systemName = v; else filename = v;
        }
      } else r.skip(wire, stop, inside);
    }
    functionId.push(id);
    functionName.push(name);
    functionSystemName.push(systemName);
    functionFilename.push(filename);
    functionStartLine.push(startLine);
  };

  while (r.pos < end) {
    const at = r.pos;
    const tag = r.varint(end, `the field at byte ${at}`);
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 0) r.fail(`byte ${at} holds field number 0, which protobuf never writes (this is not a pprof profile, or it is damaged)`);
    const inside = FIELD_NAMES[field] ?? `field ${field}`;
    switch (field) {
      case 1: case 2: case 3: case 4: case 5: case 6: case 11: {
        r.expect(wire, Wire.Len, inside);
        const [start, stop] = r.span(end, inside);
        const after = r.pos;
        if (field === 1) sampleTypes.push(valueType(start, stop, inside));
        else if (field === 2) sample(start, stop);
        else if (field === 3) mappingCount++;
        else if (field === 4) location(start, stop);
        else if (field === 5) fn(start, stop);
        else if (field === 6) {
          strStart.push(start);
          strLength.push(stop - start);
        } else periodType = valueType(start, stop, inside);
        r.pos = after;
        break;
      }
      case 13:
        r.repeated(wire, end, inside, comments);
        break;
      case 7: case 8: case 9: case 10: case 12: case 14: case 15: {
        r.expect(wire, Wire.Varint, inside);
        const v = r.varint(end, inside);
        if (field === 7) dropFrames = v;
        else if (field === 8) keepFrames = v;
        else if (field === 9) timeNanos = v;
        else if (field === 10) durationNanos = v;
        else if (field === 12) period = v;
        else if (field === 14) defaultSampleType = v;
        break;
      }
      default:
        r.skip(wire, end, inside);
    }
  }
  sampleLocStart.push(locIds.length);
  sampleValueStart.push(values.length);
  sampleLabelStart.push(labelKey.length);
  locationLineStart.push(lineFunction.length);

  const stringCount = strStart.length;
  if (stringCount === 0) throw pprofInvalid(source, 'it has no string table (every pprof profile has one, starting with "")');
  if (strLength.data[0] !== 0) throw pprofInvalid(source, 'string_table[0] is not the empty string, as profile.proto requires');
  const starts = strStart.view();
  const lengths = strLength.view();
  const cache = new Map<number, string>();
  const decoder = new TextDecoder('utf-8');
  const string = (i: number, what: string): string => {
    if (!(i >= 0 && i < stringCount)) throw pprofInvalid(source, `${what} names string ${i}, but the string table has ${stringCount} entries`);
    let s = cache.get(i);
    if (s === undefined) {
      s = decoder.decode(buf.subarray(starts[i], starts[i] + lengths[i]));
      cache.set(i, s);
    }
    return s;
  };

  return {
    source, stringCount, string, sampleTypes,
    sampleCount: sampleLocStart.length - 1,
    sampleLocStart: sampleLocStart.view(), locIds: locIds.view(), sampleValueStart: sampleValueStart.view(), values: values.view(),
    sampleLabelStart: sampleLabelStart.view(), labelKey: labelKey.view(), labelStr: labelStr.view(), labelNum: labelNum.view(), labelNumUnit: labelNumUnit.view(),
    locationCount: locationId.length, locationId: locationId.view(), locationLineStart: locationLineStart.view(),
    lineFunction: lineFunction.view(), lineLine: lineLine.view(), lineColumn: lineColumn.view(),
    functionCount: functionId.length, functionId: functionId.view(), functionName: functionName.view(), functionSystemName: functionSystemName.view(),
    functionFilename: functionFilename.view(), functionStartLine: functionStartLine.view(),
    mappingCount, timeNanos, durationNanos, periodType, period, comments, defaultSampleType, dropFrames, keepFrames,
  };
}
