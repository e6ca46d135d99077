'use strict';
// Small enough for TurboFan to inline into its caller's hot loop (inline-app.js): V8 then charges these
// lines to the caller's frame, and only attribution knows they are scale's.
function scale(i, weight) {
  let x = i;
  for (let k = 0; k < weight; k++) x = (x * 1.0001 + k) % 1e9;
  return x;
}

module.exports = { scale };
