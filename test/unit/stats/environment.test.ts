import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { captureEnvironment, compareEnvironments, type EnvironmentDeps, type RunEnvironment } from '../../../src/core/stats/environment';

const env = (over: Partial<RunEnvironment> = {}): RunEnvironment => ({
  nodeVersion: 'v22.3.0', nodeEnv: 'production', gitCommit: 'abc', gitDirty: false, cpuCount: 8,
  cpuModel: 'Intel(R) Xeon(R) CPU @ 2.20GHz', hostname: 'dev-box', platform: 'linux', loadAverage: [0.5, 0.4, 0.3],
  capturedAt: '2024-05-01T10:00:00.000Z', ...over,
});

function fakeDeps(git: Record<string, string | null>): EnvironmentDeps {
  return {
    runGit: async (args) => git[args[0]] ?? null,
    os: {
      cpus: () => [{ model: ' Apple M2 ', speed: 0, times: { user: 0, nice: 0, sys: 0, idle: 0, irq: 0 } }],
      hostname: () => 'laptop',
      platform: () => 'darwin',
      loadavg: () => [1.234, 1, 0.5],
    },
    now: () => new Date('2024-05-01T10:00:00Z'),
  };
}

const hasGit = (() => { try { execFileSync('git', ['--version']); return true; } catch { return false; } })();

describe('captureEnvironment', () => {
  it('records the target Node, NODE_ENV, git state and machine', async () => {
    const e = await captureEnvironment({ cwd: '/w', nodeVersion: 'v20.11.0', nodeEnv: undefined }, fakeDeps({ 'rev-parse': 'f00d\n', status: ' M app.js\n' }));
    assert.deepEqual(e, {
      nodeVersion: 'v20.11.0', nodeEnv: null, gitCommit: 'f00d', gitDirty: true, cpuCount: 1, cpuModel: 'Apple M2',
      hostname: 'laptop', platform: 'darwin', loadAverage: [1.23, 1, 0.5], capturedAt: '2024-05-01T10:00:00.000Z',
    });
  });

  it('reports null git fields when git fails or is missing', async () => {
    const e = await captureEnvironment({ cwd: '/w', nodeVersion: 'v20.11.0', nodeEnv: 'production' }, fakeDeps({}));
    assert.equal(e.gitCommit, null);
    assert.equal(e.gitDirty, null);
    assert.equal(e.nodeEnv, 'production');
  });

  (hasGit ? it : it.skip)('reads a real repository: no commit yet, dirty ignoring .hotpath, and a plain folder', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-env-'));
    try {
      const plain = await captureEnvironment({ cwd: dir, nodeVersion: process.version, nodeEnv: null });
      assert.equal(plain.gitCommit, null);
      assert.equal(plain.gitDirty, null);
      assert.ok(plain.cpuCount >= 1);

      execFileSync('git', ['init', '-q'], { cwd: dir });
      fs.mkdirSync(path.join(dir, '.hotpath', 'baselines'), { recursive: true });
      fs.writeFileSync(path.join(dir, '.hotpath', 'baselines', 'x.json'), '{}');
      const clean = await captureEnvironment({ cwd: dir, nodeVersion: process.version, nodeEnv: null });
      assert.equal(clean.gitCommit, null); // no commit yet
      assert.equal(clean.gitDirty, false); // our own .hotpath folder does not count

      fs.writeFileSync(path.join(dir, 'app.js'), '');
      const dirty = await captureEnvironment({ cwd: dir, nodeVersion: process.version, nodeEnv: null });
      assert.equal(dirty.gitDirty, true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('compareEnvironments', () => {
  it('finds nothing to say about the same environment', () => {
    assert.deepEqual(compareEnvironments(env(), env({ gitCommit: 'def', capturedAt: '2024-05-02T00:00:00Z' })), []);
  });

  it('explains a different Node version', () => {
    const [w] = compareEnvironments(env({ nodeVersion: 'v20.11.0' }), env());
    assert.equal(w.code, 'ENV_NODE_VERSION_DIFFERS');
    assert.match(w.message, /^The baseline ran on Node v20\.11\.0 and this run on v22\.3\.0: a different V8/);
  });

  it('lists what differs about the machine', () => {
    const [w] = compareEnvironments(env({ cpuModel: 'AMD EPYC 7B13', cpuCount: 2, hostname: 'ci-7' }), env());
    assert.equal(w.code, 'ENV_MACHINE_DIFFERS');
    assert.match(w.message, /\(CPU 'AMD EPYC 7B13' → 'Intel\(R\) Xeon\(R\) CPU @ 2\.20GHz', 2 → 8 cores, host 'ci-7' → 'dev-box'\)/);
  });

  it('explains a different NODE_ENV, including unset', () => {
    const [w] = compareEnvironments(env(), env({ nodeEnv: null }));
    assert.equal(w.code, 'ENV_NODE_ENV_DIFFERS');
    assert.match(w.message, /^NODE_ENV was 'production' for the baseline and is unset now/);
  });

  it('flags a load average above the core count on either side', () => {
    const warnings = compareEnvironments(env({ loadAverage: [9.5, 8, 7] }), env({ loadAverage: [8.2, 1, 1] }));
    assert.deepEqual(warnings.map((w) => w.code), ['ENV_BUSY_MACHINE']);
    assert.match(warnings[0].message, /load average 9\.5 on 8 cores\) and when this run started \(load average 8\.2 on 8 cores\)/);
    assert.deepEqual(compareEnvironments(env({ loadAverage: [7.9, 8, 7] }), env()), []);
  });
});
