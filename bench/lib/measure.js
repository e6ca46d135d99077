'use strict';
// One measurement in a fresh process, so peak RSS (maxRSS) belongs to this measurement alone.
//   node measure.js json  <profile>            readFileSync(utf8) + JSON.parse
//   node measure.js model <profile> <bundle>   loadProfile(path, { sourceMaps: false })
//   node measure.js noop  <profile> <bundle>   just start and load the bundle: the process's floor
// Prints one JSON line: { ms, maxRssMB, ... }.
const fs = require('node:fs');

async function main() {
  const [mode, file, bundle] = process.argv.slice(2);
  const lib = bundle ? require(bundle) : null;
  let extra = {};
  const t0 = performance.now();
  if (mode === 'json') {
    const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
    extra = { nodes: profile.nodes.length, samples: profile.samples.length };
  } else if (mode === 'model') {
    const model = await lib.loadProfile(file, { sourceMaps: false });
    extra = { nodes: model.nodeCount, samples: model.sampleCount, functions: model.functions.length, lineEntries: model.lines.count };
  } else if (mode !== 'noop') {
    throw new Error(`unknown mode ${mode}`);
  }
  const ms = performance.now() - t0;
  process.stdout.write(`${JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, ...extra })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exitCode = 1;
});
