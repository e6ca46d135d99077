'use strict';
// Browser-test app for the compare report: `node diff-app.js <parseWeight> <renderWeight>`. Run as 3,1
// (before) and 1,3 (after): parseInput gets faster, renderOutput slower (the differential colours
// themselves are checked on written profiles of the same shape: diffProfile.ts).
// Each call runs for milliseconds, so the top-level loop stays cold and nothing is inlined into it.
// Without arguments the weights come from DIFF_WEIGHTS ("3,1"): `hotpath compare --env-a/--env-b` sets them.
const [parseWeight, renderWeight] = (process.argv[2] ? process.argv.slice(2, 4) : (process.env.DIFF_WEIGHTS || '1,1').split(',')).map(Number);

function parseInput() {
  let acc = 0;
  for (let i = 0; i < parseWeight * 400_000; i++) acc = (acc + i * i) % 1000003;
  return acc;
}

function renderOutput() {
  let acc = 0;
  for (let i = 0; i < renderWeight * 400_000; i++) acc = (acc ^ (i * 31)) % 1000033;
  return acc;
}

const until = Date.now() + 700;
let sink = 0;
while (Date.now() < until) {
  sink += parseInput();
  sink += renderOutput();
}
if (sink === -1) console.log(sink);
