import { strict as assert } from 'node:assert';
import { defaultCeilingMb, LEAK_HEAP_CEILING_MB, outOfMemoryLine, planHeapCeiling, rungThatFits } from '../../../src/core/memory/heapCeiling';

const GB = 2 ** 30;

describe('the leak check\'s heap ceiling', () => {
  it('is LEAK_HEAP_CEILING_MB, never above V8\'s own default of a quarter of the machine\'s memory', () => {
    assert.equal(defaultCeilingMb(32 * GB), LEAK_HEAP_CEILING_MB);
    assert.equal(defaultCeilingMb(2 * GB), 512);
  });

  it('is added to NODE_OPTIONS (the user\'s --env over the inherited ones), keeping what was there', () => {
    const plain = planHeapCeiling(['node', 'app.js'], undefined, {}, 32 * GB);
    assert.deepEqual(plain.env, { NODE_OPTIONS: '--max-old-space-size=1024' });
    assert.deepEqual(plain.ceiling, { maxOldSpaceMb: 1024, setBy: 'hotpath', heapSizeLimitBytes: null });
    const inherited = planHeapCeiling(['node', 'app.js'], { PORT: '0' }, { NODE_OPTIONS: '--enable-source-maps' }, 32 * GB);
    assert.deepEqual(inherited.env, { PORT: '0', NODE_OPTIONS: '--enable-source-maps --max-old-space-size=1024' });
    // --env NODE_OPTIONS=… replaces the inherited value for the app, so the ceiling joins that one.
    const own = planHeapCeiling(['node', 'app.js'], { NODE_OPTIONS: '--trace-warnings' }, { NODE_OPTIONS: '--enable-source-maps' }, 32 * GB);
    assert.equal(own.env?.NODE_OPTIONS, '--trace-warnings --max-old-space-size=1024');
  });

  it('respects the app\'s own heap size, in NODE_OPTIONS or on the command line (which wins over NODE_OPTIONS)', () => {
    const env = { NODE_OPTIONS: '--max-old-space-size=4096' };
    assert.deepEqual(planHeapCeiling(['node', 'app.js'], env, {}), { ceiling: { maxOldSpaceMb: 4096, setBy: 'app', heapSizeLimitBytes: null }, env });
    assert.equal(planHeapCeiling(['node', 'app.js'], undefined, { NODE_OPTIONS: '--max_old_space_size 300' }).ceiling.maxOldSpaceMb, 300);
    const both = planHeapCeiling(['node', '--max-old-space-size=2048', 'app.js'], undefined, { NODE_OPTIONS: '--max-old-space-size=300' });
    assert.deepEqual(both.ceiling, { maxOldSpaceMb: 2048, setBy: 'app', heapSizeLimitBytes: null });
    assert.equal(both.env, undefined);
    // --max-heap-size bounds the whole heap: respected, but it names no old-space size.
    assert.deepEqual(planHeapCeiling(['node', '--max-heap-size=512', 'app.js'], undefined, {}).ceiling, { maxOldSpaceMb: null, setBy: 'app', heapSizeLimitBytes: null });
    // A flag that only starts like one is not one.
    assert.equal(planHeapCeiling(['node', 'app.js', '--max-old-space-size-ish'], undefined, {}, 32 * GB).ceiling.setBy, 'hotpath');
  });

  it('recognises V8\'s fatal out-of-memory report, and not an app that logs the words', () => {
    const oom = '<--- JS stacktrace --->\n\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n----- Native stack trace -----';
    assert.equal(outOfMemoryLine(oom), 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory');
    assert.equal(outOfMemoryLine('FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory'), 'FATAL ERROR: Ineffective mark-compacts near heap limit Allocation failed - JavaScript heap out of memory');
    assert.equal(outOfMemoryLine('#\n# Fatal JavaScript out of memory: Reached heap limit\n#'), '# Fatal JavaScript out of memory: Reached heap limit');
    assert.equal(outOfMemoryLine('cache: JavaScript heap out of memory soon? FATAL ERROR: Reached heap limit'), null);
    assert.equal(outOfMemoryLine('exiting with code 3'), null);
  });

  it('suggests a --rung whose whole check fits in a quarter of the old space left after the warm-up', () => {
    const ceiling = { maxOldSpaceMb: 64, setBy: 'app' as const, heapSizeLimitBytes: 256 * 2 ** 20 };
    // 61 MB of room, a quarter of it over 4 × N requests of 184 KB: N = 21 (the old-space limit, not V8's 256 MB).
    assert.equal(rungThatFits(ceiling, 3 * 2 ** 20, 184 * 1024), 21);
    assert.equal(rungThatFits({ ...ceiling, maxOldSpaceMb: null }, 3 * 2 ** 20, 184 * 1024), 88);
    assert.equal(rungThatFits(ceiling, 3 * 2 ** 20, 0), null);
    assert.equal(rungThatFits(ceiling, 3 * 2 ** 20, 10 * 2 ** 20), null, 'below the smallest --rung');
    assert.equal(rungThatFits({ maxOldSpaceMb: null, setBy: 'app', heapSizeLimitBytes: null }, 3 * 2 ** 20, 1000), null);
  });
});
