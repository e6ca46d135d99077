'use strict';
// Preloaded (`node -r`) into a measured process: on exit, prints its CPU time (all threads) and wall
// time since start to stderr as one JSON line tagged for the benchmark to find.
const start = performance.now();
process.on('exit', () => {
  const u = process.cpuUsage();
  process.stderr.write(`\n@@hotpath-bench ${JSON.stringify({ cpuMs: (u.user + u.system) / 1000, wallMs: performance.now() - start })}\n`);
});
