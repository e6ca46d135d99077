'use strict';
// pprof import and export of a ~100 MB profile against the .cpuprofile path, each measured in a fresh
// process, alternating, medians of 3:
// - import: `loadProfile` of a ~100 MB .cpuprofile (the reference) and of a pprof profile of the same
//   samples as a continuous profiler writes them (one sample per tick with dd-trace's per-sample labels,
//   `span id` and `end_timestamp_ns`: ~100 MB of protobuf, gzipped as on disk);
// - decoding alone: Hotpath's decoder against pprof-format's `Profile.decode` of the same bytes (why
//   Hotpath decodes pprof itself);
// - export: `exportPprof` of the .cpuprofile's model, against building that model.
// HOTPATH_BENCH_PPROF_MB sets the size (default 100).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const zlib = require('node:zlib');
const { bundle } = require('../lib/build');
const { cachedProfile } = require('../lib/generate');

const RUNS = 3;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const round = (v, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

function measure(mode, file, bundlePath) {
  const out = execFileSync(process.execPath, ['--max-old-space-size=8192', path.join(__dirname, '../lib/measure-pprof.js'), mode, file, bundlePath], {
    encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return JSON.parse(out.trim().split('\n').pop());
}

/**
 * A pprof profile of the .cpuprofile's samples, as a continuous profiler's timeline writes them: one pprof
 * sample per tick, labelled as dd-trace labels them, up to `targetMB` of protobuf.
 */
async function cachedPprof(cpuprofile, targetMB, lib, log) {
  const file = cpuprofile.replace(/\.cpuprofile$/, `-ticks-${targetMB}mb.pb.gz`);
  if (fs.existsSync(file)) return file;
  log(`generating ${path.basename(file)}…`);
  const { Profile, StringTable, ValueType, Sample, Location, Line, Function: PFunction, Label } = require('pprof-format');
  const model = await lib.loadProfile(cpuprofile, { sourceMaps: false });
  const st = new StringTable();
  const fns = model.functions.map((f, i) => new PFunction({ id: i + 1, name: st.dedup(f.name || '(anonymous)'), systemName: st.dedup(f.name || '(anonymous)'), filename: st.dedup(f.file), startLine: f.line ?? 0 }));
  const locs = model.functions.map((f, i) => new Location({ id: i + 1, line: [new Line({ functionId: i + 1, line: f.line ?? 0 })] }));
  const stackOf = new Map();
  const stack = (v) => {
    let s = stackOf.get(v);
    if (!s) {
      s = [];
      for (let a = v; a >= 0 && a !== model.rootIndex; a = model.nodes.parent[a]) s.push(model.nodes.func[a] + 1);
      stackOf.set(v, s);
    }
    return s;
  };
  const kSpan = st.dedup('span id');
  const kEnd = st.dedup('end_timestamp_ns');
  const samples = [];
  let t = 1_700_000_000_000_000_000n;
  let bytes = 0;
  for (let i = 0; i < model.samples.length && bytes < targetMB * 1048576; i++) {
    const v = model.samples[i];
    const us = i + 1 < model.samples.length ? Math.max(0, model.timeDeltas[i + 1]) : 1000;
    t += BigInt(Math.round(us * 1000));
    const sample = new Sample({ locationId: stack(v), value: [1, Math.round(us * 1000)], label: [new Label({ key: kSpan, num: 1_000_000 + Math.floor(i / 20) }), new Label({ key: kEnd, num: t })] });
    samples.push(sample);
    bytes += sample.length + 3;
  }
  const profile = new Profile({
    sampleType: [new ValueType({ type: st.dedup('sample'), unit: st.dedup('count') }), new ValueType({ type: st.dedup('wall'), unit: st.dedup('nanoseconds') })],
    sample: samples, location: locs, function: fns, stringTable: st, timeNanos: 1_700_000_000_000_000_000n, durationNanos: Math.round(model.durationUs * 1000),
  });
  const raw = profile.encode();
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, zlib.gzipSync(raw));
  fs.renameSync(tmp, file);
  fs.writeFileSync(`${file}.rawbytes`, String(raw.length));
  return file;
}

async function run({ log }) {
  const sizeMB = Number(process.env.HOTPATH_BENCH_PPROF_MB || 100);
  log('bundling bench/lib/pprof-entry.ts → bench/.build/pprof.js');
  const bundlePath = bundle('bench/lib/pprof-entry.ts', 'pprof');
  const lib = require(bundlePath);
  const cpuprofile = cachedProfile(sizeMB, log);
  const pprof = await cachedPprof(cpuprofile, sizeMB, lib, log);
  const sizes = {
    cpuprofileMB: round(fs.statSync(cpuprofile).size / 1048576),
    pprofMB: round(Number(fs.readFileSync(`${pprof}.rawbytes`, 'utf8')) / 1048576),
    pprofGzMB: round(fs.statSync(pprof).size / 1048576),
  };
  log(`sizes: ${JSON.stringify(sizes)}`);
  const pairs = [
    ['import', ['cpuprofile-model', cpuprofile], ['pprof-model', pprof]],
    ['decode', ['pprof-format', pprof], ['hotpath-decode', pprof]],
    ['export', ['cpuprofile-model', cpuprofile], ['export', cpuprofile]],
  ];
  const results = {};
  for (const [name, ref, subject] of pairs) {
    const a = [];
    const b = [];
    for (let r = 0; r < RUNS; r++) {
      const order = r % 2 === 0 ? [[ref, a], [subject, b]] : [[subject, b], [ref, a]];
      for (const [[mode, file], into] of order) {
        let m;
        try { m = measure(mode, file, bundlePath); } catch (err) { m = { error: String(err.message || err).split('\n')[0] }; }
        into.push(m);
        log(`${name} ${mode.padEnd(16)} run ${r + 1}: ${m.error ? `failed: ${m.error}` : `${m.ms.toFixed(0)} ms, peak RSS ${m.maxRssMB.toFixed(0)} MB`}`);
      }
    }
    const ok = (list) => list.filter((m) => !m.error);
    const summary = (list) => (ok(list).length ? { ms: round(median(ok(list).map((m) => m.ms)), 0), peakRssMB: round(median(ok(list).map((m) => m.maxRssMB)), 0), runs: list.map((m) => (m.error ? m.error : round(m.ms, 0))) } : { error: list[0].error });
    const refSummary = summary(a);
    const subjectSummary = summary(b);
    results[name] = {
      reference: { mode: ref[0], ...refSummary },
      subject: { mode: subject[0], ...subjectSummary, ...(ok(b)[0]?.outputMB !== undefined ? { outputMB: round(ok(b)[0].outputMB, 2) } : {}) },
      ratio: refSummary.ms && subjectSummary.ms ? round(subjectSummary.ms / refSummary.ms, 2) : null,
    };
  }
  return { runsPerMeasurement: RUNS, sizes, machine: { cpus: os.cpus().length }, ...results };
}

module.exports = { run };
