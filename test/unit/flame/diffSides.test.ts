import * as assert from 'node:assert/strict';
import { describeSide } from '../../../src/webview/diffSides';

/** The differential flamegraph's header says what each side's frames cover when the diff spans threads. */
describe('differential header: the threads a side covers', () => {
  it('names every thread of a worker pool, a side without workers, and other processes', () => {
    assert.equal(describeSide({ label: 'POOL_THREADS=2', threads: ['main', 'worker 1 (worker.js)', 'worker 2 (worker.js)'] }), 'POOL_THREADS=2 · all 3 threads (main + 2 workers)');
    assert.equal(describeSide({ label: 'HEAD~1 (1a2b3c4)', threads: ['main'] }), 'HEAD~1 (1a2b3c4) · main thread only (no workers)');
    assert.equal(describeSide({ label: 'B', threads: ['main', 'process 42 (marked in.md)', 'worker 1 (w.js)'] }), 'B · all 3 threads (main + 1 worker + 1 other process)');
    assert.equal(describeSide({ label: 'B' }), 'B', 'main threads only: nothing to say');
  });
});
