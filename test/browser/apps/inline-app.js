'use strict';
// Browser-test app for inlined frames: `node inline-app.js [weight]`. scale() (inline-lib.js) runs in
// priceAll's hot loop, where TurboFan inlines it; its weight (default 3) sets how much of the time is
// scale's, so two recordings with different weights make a differential report with a change in it.
const { scale } = require('./inline-lib');

const weight = Number(process.argv[2] || 3);

function priceAll(n) {
  let total = 0;
  for (let i = 0; i < n; i++) total += scale(i, weight);
  return total;
}

function other(n) {
  let acc = 0;
  for (let i = 0; i < n; i++) acc = (acc + i * 7) % 1000003;
  return acc;
}

const until = Date.now() + 800;
let sink = 0;
while (Date.now() < until) {
  sink += priceAll(100_000);
  sink += other(200_000);
}
if (sink === -1) console.log(sink);
