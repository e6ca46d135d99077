'use strict';
// One pprof measurement in a fresh process (peak RSS is this measurement's alone):
//   node measure-pprof.js cpuprofile-model <file.cpuprofile> <bundle>   loadProfile of the .cpuprofile (the reference)
//   node measure-pprof.js pprof-model      <file.pb.gz> <bundle>        loadProfile of the pprof (gunzip, decode, paths, model)
//   node measure-pprof.js hotpath-decode   <file.pb.gz> <bundle>        gunzip + Hotpath's decoder alone
//   node measure-pprof.js pprof-format     <file.pb.gz> <bundle>        gunzip + pprof-format's Profile.decode
//   node measure-pprof.js export           <file.cpuprofile> <bundle>   loadProfile, then exportPprof (timed alone)
// Prints one JSON line: { ms, maxRssMB, ... }.
const os = require('node:os');
const zlib = require('node:zlib');
const fs = require('node:fs');

async function main() {
  const [mode, file, bundle] = process.argv.slice(2);
  const lib = require(bundle);
  const options = { sourceMaps: false, pathMap: { roots: [os.tmpdir()] } };
  let extra = {};
  let t0 = performance.now();
  if (mode === 'cpuprofile-model' || mode === 'pprof-model') {
    const model = await lib.loadProfile(file, options);
    extra = { nodes: model.nodeCount, samples: model.samples.length, functions: model.functions.length, durationUs: model.durationUs };
  } else if (mode === 'hotpath-decode') {
    const d = lib.decodePprof(await lib.gunzipBounded(fs.readFileSync(file), file), file);
    extra = { samples: d.sampleCount, locations: d.locationCount };
  } else if (mode === 'pprof-format') {
    const { Profile } = require('pprof-format');
    const p = Profile.decode(zlib.gunzipSync(fs.readFileSync(file)));
    extra = { samples: p.sample.length, locations: p.location.length };
  } else if (mode === 'export') {
    const model = await lib.loadProfile(file, options);
    extra.modelMs = performance.now() - t0;
    t0 = performance.now();
    const out = lib.exportPprof(model, null, { startedAtMs: 0 });
    extra.outputMB = out.bytes.length / 1048576;
    extra.samples = out.totalSamples;
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, ...extra })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exitCode = 1;
});
