import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';

// `npm test --jobs auto` sizes its shared lane by the cores *other* programs keep busy (scripts/test/
// busy.js). The processes of its own process group — the typecheck .ci/run starts beside it — are the
// run's own work: counted as other, a typecheck still running made the whole shared lane run one file
// at a time (a clean-clone run, 2026-11-27). No timing is asserted: each busy child says how much CPU it
// has used before the group's times are read, so the check does not depend on the machine's load.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const busy = require('../../scripts/test/busy.js') as {
  otherBusyCores(before: Sample, after: Sample, cores: number): number;
  medianOtherBusy(samples: Sample[], cores: number): number;
  groupTimes(pgrp?: number | null): Map<number, number> | null;
  ownGroup(): number | null;
};
interface Sample { machine: { busy: number; all: number }; group: Map<number, number> | null }

/** A child that burns `ms` of its own CPU time, prints "done", then waits to be killed. */
function burner(ms: number, detached: boolean): { child: ChildProcess; done: Promise<void> } {
  const code = `const s = process.cpuUsage(); while ((process.cpuUsage(s).user + process.cpuUsage(s).system) / 1000 < ${ms}); console.log('done'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { detached, stdio: ['ignore', 'pipe', 'inherit'] });
  const done = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => { if (String(d).includes('done')) resolve(); });
    child.on('exit', (c) => reject(new Error(`burner exited (${c})`)));
  });
  return { child, done };
}

describe('the test runner: cores other programs keep busy', () => {
  it('leaves out the run\'s own process group (a same-group child\'s CPU), keeps another group\'s', async function () {
    if (!fs.existsSync('/proc/self/stat')) this.skip();
    const own = burner(200, false);
    const other = burner(200, true);
    try {
      await Promise.all([own.done, other.done]);
      const times = busy.groupTimes()!;
      assert.ok(times, 'the group is read from /proc');
      assert.ok((times.get(own.child.pid!) ?? 0) >= 150, `the same-group child's CPU time is counted as ours: ${times.get(own.child.pid!)} ms`);
      assert.ok(!times.has(other.child.pid!), 'a child in its own process group is another program');
      assert.ok(times.has(process.pid), 'this process is in its own group');
    } finally {
      own.child.kill('SIGKILL');
      other.child.kill('SIGKILL');
    }
  });

  it('other programs\' cores: the machine\'s busy time less the group\'s, never below zero', () => {
    const at = (busyMs: number, allMs: number, group: Array<[number, number]> | null): Sample => ({ machine: { busy: busyMs, all: allMs }, group: group && new Map(group) });
    // 2 cores over 1 s (2000 ms of CPU time in all): 1500 ms busy, of which 1000 ms the group's → 0.5 cores other.
    assert.equal(busy.otherBusyCores(at(0, 0, [[1, 0], [2, 100]]), at(1500, 2000, [[1, 600], [2, 100], [3, 400]]), 2), 0.5);
    // Without /proc nothing is left out.
    assert.equal(busy.otherBusyCores(at(0, 0, null), at(1500, 2000, null), 2), 1.5);
    // A group process that ended in between is not subtracted; more group time than busy time is 0, not negative.
    assert.equal(busy.otherBusyCores(at(0, 0, [[1, 0]]), at(1000, 2000, [[1, 1500]]), 2), 0);
    assert.equal(busy.otherBusyCores(at(0, 0, [[1, 0], [9, 300]]), at(1000, 2000, [[1, 200]]), 2), 0.8);
  });

  it('over five windows, the median: a group process ending in one window does not make an idle machine busy', () => {
    const at = (busyMs: number, allMs: number, group: Array<[number, number]>): Sample => ({ machine: { busy: busyMs, all: allMs }, group: new Map(group) });
    // 2 cores, 400 ms windows (800 ms of CPU time each). The group's tsc (pid 7) runs throughout and ends
    // in the second window: its last 350 ms there are not subtracted, so that window alone reads 0.9 cores.
    const idle = [
      at(0, 0, [[1, 0], [7, 0]]),
      at(400, 800, [[1, 0], [7, 390]]),
      at(760, 1600, [[1, 10]]), // 7 ended: 350 ms of its CPU now looks like another program's
      at(780, 2400, [[1, 20], [8, 0]]),
      at(1180, 3200, [[1, 30], [8, 380]]),
      at(1580, 4000, [[1, 40], [8, 770]]),
    ];
    assert.equal(busy.otherBusyCores(idle[1], idle[2], 2), 0.875);
    assert.ok(busy.medianOtherBusy(idle, 2) <= 0.05, `median ${busy.medianOtherBusy(idle, 2)}`);
    // Another program busy on one core in every window: one core, as measured over the whole.
    const loaded = [0, 1, 2, 3, 4, 5].map((i) => at(i * 400, i * 800, [[1, 0]]));
    assert.equal(busy.medianOtherBusy(loaded, 2), 1);
  });
});
