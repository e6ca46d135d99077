'use strict';
// An artificial CPU competitor: N processes that each burn CPU with a duty cycle drawn at random every
// slice (uniform 0–100%, slices of 250 ms), like other programs on a developer's machine that start,
// stop and spike. Averages half a core per process; bursts to all of it.
const { spawn } = require('node:child_process');

const BURNER = `
const slice = Number(process.argv[1]) || 250;
let seed = Number(process.argv[2]) || 1;
const dutyMin = Number(process.argv[3] ?? 0);
const dutyMax = Number(process.argv[4] ?? 1);
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
let x = 0;
const parent = process.ppid;
for (;;) {
  if (process.ppid !== parent) process.exit(0); // whoever started us is gone: so are we

  const busy = slice * (dutyMin + (dutyMax - dutyMin) * rand());
  const start = Date.now();
  while (Date.now() - start < busy) x = (x * 31 + 7) | 0;
  const idle = slice - busy;
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, idle);
}
`;

/** `duty`: the range each slice's busy fraction is drawn from (default 0–1; [1, 1] burns a whole core). */
function startCompetitor({ processes, sliceMs = 250, seed = 1, duty = [0, 1] }) {
  const children = [];
  for (let i = 0; i < processes; i++) {
    children.push(spawn(process.execPath, ['-e', BURNER, String(sliceMs), String(seed + i * 7919), String(duty[0]), String(duty[1])], { stdio: 'ignore' }));
  }
  return {
    pids: children.map((c) => c.pid),
    async stop() {
      await Promise.all(children.map((c) => new Promise((resolve) => {
        if (c.exitCode !== null || c.signalCode !== null) return resolve();
        c.once('exit', resolve);
        c.kill('SIGKILL');
      })));
    },
  };
}

module.exports = { startCompetitor };
