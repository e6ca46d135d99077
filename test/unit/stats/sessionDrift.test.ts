import * as assert from 'node:assert/strict';
import { compareMetricSamples, type MetricSpecs } from '../../../src/core/stats/metrics';
import { appKind, runKind, sessionKind } from '../../../src/core/stats/sessionDrift';

const run = (rps: number, cpu: number | undefined, other?: number) => ({ requestsPerSecond: rps, ...(cpu !== undefined ? { cpuMsPerRequest: cpu } : {}), ...(other !== undefined ? { otherCpuCores: other } : {}) });

describe('session drift per kind of app (src/core/stats/sessionDrift.ts)', () => {
  it('a run is CPU-bound from 0.6 cores; waiting on I/O at most 0.3 cores with half a core left idle; else unknown', () => {
    assert.equal(runKind(run(2000, 0.45), 2), 'cpu'); // 0.9 cores
    assert.equal(runKind(run(450, 0.4, 0.1), 2), 'io'); // 0.18 cores, 1.72 idle
    assert.equal(runKind(run(450, 0.4, 1.6), 2), undefined, 'a busy machine: little CPU may be starvation, not waiting');
    assert.equal(runKind(run(450, 0.4), 2), undefined, 'no figure for other programs');
    assert.equal(runKind(run(1000, 0.45, 0), 2), undefined, '0.45 cores: neither');
    assert.equal(runKind(run(1000, undefined, 0), 2), undefined, 'no CPU time');
  });

  it('a session has a kind when all its runs do; a comparison when both sessions have the same', () => {
    const io = [run(450, 0.4, 0.1), run(460, 0.41, 0.2), run(440, 0.39, 0.1)];
    const cpu = [run(2000, 0.45), run(2100, 0.44), run(1900, 0.46)];
    assert.equal(sessionKind(io, 2), 'io');
    assert.equal(sessionKind([...io, run(450, 0.4, 1.8)], 2), undefined);
    assert.equal(appKind(io, io, 2), 'io');
    assert.equal(appKind(cpu, cpu, 2), 'cpu');
    assert.equal(appKind(io, cpu, 2), undefined, 'a change that made the app CPU-bound: the larger term');
  });

  it('the comparison uses the kind\'s term, or the larger one when the kind is unknown', () => {
    const specs: MetricSpecs = { m: { label: 'm', unit: 'ms', better: 'lower', inVerdict: true, sessionDrift: 0.2, sessionDriftByKind: { cpu: 0.02, io: 0.2 } } };
    const samples = { m: { a: [10, 10.2, 9.9], b: [10.1, 10, 10.3] } };
    const sd = (kind?: 'cpu' | 'io') => compareMetricSamples(specs, samples, 'independent', { appKind: kind }).metrics.m.sessionSd;
    assert.equal(sd('cpu'), 0.02);
    assert.equal(sd('io'), 0.2);
    assert.equal(sd(undefined), 0.2);
    assert.match(compareMetricSamples(specs, samples, 'independent', { appKind: 'io' }).method, /drift between the two sessions of an app that waits on I\/O \(1 SD: m ±22%\)/);
  });
});
