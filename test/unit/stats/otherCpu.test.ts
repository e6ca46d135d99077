import * as assert from 'node:assert/strict';
import { markCpu, otherCpuCores, type CpuMark } from '../../../src/core/measure/otherCpu';

const mark = (atMs: number, machineBusyMs: number, ownMs: number): CpuMark => ({ atMs, machineBusyMs, ownMs });

describe("other programs' CPU use during a run (measure/otherCpu)", () => {
  it('is the machine\'s busy time minus the app\'s and Hotpath\'s own, per second of the run, in cores', () => {
    // 3 s run: the machine was busy 4,500 ms in all, Hotpath 900 ms, the app 2,400 ms → 1,200 ms others.
    assert.equal(otherCpuCores(mark(0, 10_000, 100), mark(3000, 14_500, 1000), 2400), 0.4);
  });

  it('reads 0 rather than below it when tick rounding makes an idle machine look negative', () => {
    assert.equal(otherCpuCores(mark(0, 0, 0), mark(3000, 3000, 600), 2420), 0);
  });

  it('says nothing without the app\'s CPU time or over too short a run', () => {
    assert.equal(otherCpuCores(mark(0, 0, 0), mark(3000, 3000, 600), null), null);
    assert.equal(otherCpuCores(mark(0, 0, 0), mark(200, 300, 10), 100), null);
  });

  it('sees a process burning a core that is neither the app nor Hotpath', async function () {
    this.timeout(10_000);
    const { spawn } = await import('node:child_process');
    const burner = spawn(process.execPath, ['-e', 'const end = Date.now() + 5000; while (Date.now() < end);'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const before = markCpu();
      await new Promise((r) => setTimeout(r, 1500));
      const after = markCpu();
      const cores = otherCpuCores(before, after, 0)!;
      // The burner alone is ~1 core; whatever else the machine runs only adds to it. Chance of failing on a
      // correct product: < 1e-6 — less than 0.6 cores of others would need the busy loop to stop for
      // most of the 1.5 s window while nothing else runs.
      assert.ok(cores >= 0.6, `measured ${cores} cores of other load with a busy loop running`);
    } finally {
      const gone = new Promise((r) => burner.once('exit', r));
      burner.kill('SIGKILL');
      await gone;
      assert.ok(burner.signalCode === 'SIGKILL' || burner.exitCode !== null, 'the busy loop is stopped');
    }
  });
});
