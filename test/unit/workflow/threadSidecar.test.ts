/**
 * The threads sidecar beside a run's main profile: written when a run profiled worker threads, read
 * back by whoever opens the main profile later (report, VS Code) — and, being a file on disk, read
 * as data: only plain names of profiles in the same folder count.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { saveProfiles, threadProfilesOf, threadSidecarPath } from '../../../src/core/workflow/profileStore';

const profile = { nodes: [{ id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0 }], startTime: 0, endTime: 1, samples: [], timeDeltas: [] };

describe('workflow: the threads sidecar', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-threads-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists a run\'s worker profiles beside its main profile, and they are read back in order', async () => {
    const saved = await saveProfiles(dir, 'api', [
      { thread: 'main', pid: 1, profile, partial: false },
      { thread: 'worker 1 (pool.js)', pid: 1, profile, partial: false },
      { thread: 'worker 2 (pool.js)', pid: 1, profile, partial: true },
    ]);
    assert.ok(fs.existsSync(threadSidecarPath(saved[0].path)));
    assert.deepEqual(await threadProfilesOf(saved[0].path), saved);
  });

  it('writes none for a run of one thread, which then reads as the main thread alone', async () => {
    const saved = await saveProfiles(dir, 'api', [{ thread: 'main', pid: 1, profile, partial: false }]);
    assert.ok(!fs.existsSync(threadSidecarPath(saved[0].path)));
    assert.deepEqual(await threadProfilesOf(saved[0].path), [{ thread: 'main', path: saved[0].path, partial: false }]);
  });

  it('ignores entries that name anything but another profile in the same folder, and damaged sidecars', async () => {
    const main = path.join(dir, 'run.cpuprofile');
    fs.writeFileSync(main, JSON.stringify(profile));
    fs.writeFileSync(path.join(dir, 'run.worker-1.cpuprofile'), JSON.stringify(profile));
    fs.mkdirSync(path.join(dir, 'dir.cpuprofile'));
    const outside = path.join(os.tmpdir(), `hotpath-outside-${process.pid}.cpuprofile`);
    fs.writeFileSync(outside, JSON.stringify(profile));
    try {
      fs.writeFileSync(threadSidecarPath(main), JSON.stringify({ version: 1, threads: [
        { thread: 'worker 1 (pool.js)', file: 'run.worker-1.cpuprofile', partial: false },
        { thread: 'again', file: 'run.worker-1.cpuprofile', partial: false },
        { thread: 'itself', file: 'run.cpuprofile' },
        { thread: 'up', file: `../${path.basename(outside)}` },
        { thread: 'absolute', file: outside },
        { thread: 'a folder', file: 'dir.cpuprofile' },
        { thread: 'missing', file: 'gone.cpuprofile' },
        { thread: 'not a profile', file: 'run.cpuprofile.v8.json' },
        { thread: 'main', file: 'run.worker-1.cpuprofile' },
        { thread: 42, file: 'run.worker-1.cpuprofile' },
        null,
      ] }));
      assert.deepEqual((await threadProfilesOf(main)).map((t) => [t.thread, path.basename(t.path)]), [['main', 'run.cpuprofile'], ['worker 1 (pool.js)', 'run.worker-1.cpuprofile']]);
      for (const damaged of ['{', '[]', '{"threads": "x"}', 'null']) {
        fs.writeFileSync(threadSidecarPath(main), damaged);
        assert.deepEqual((await threadProfilesOf(main)).map((t) => t.thread), ['main'], damaged);
      }
    } finally {
      fs.rmSync(outside, { force: true });
    }
  });
});
