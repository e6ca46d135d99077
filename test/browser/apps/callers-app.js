'use strict';
// Browser-test app for the sandwich view: `shared` is called by heavyCaller three times as often as by
// lightCaller, so 3/4 of shared's time comes through heavyCaller. Each call runs for milliseconds, so
// nothing is inlined into the callers (inlined callees would be charged to the caller's frame).
function shared() {
  let acc = 0;
  for (let i = 0; i < 300_000; i++) acc = (acc + i * i) % 1000003;
  return acc;
}

function heavyCaller() {
  return shared() + shared() + shared();
}

function lightCaller() {
  return shared();
}

const until = Date.now() + 800;
let sink = 0;
while (Date.now() < until) {
  sink += heavyCaller();
  sink += lightCaller();
}
if (sink === -1) console.log(sink);
