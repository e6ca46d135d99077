/**
 * Bad pprof input: every kind gets a clear error naming what is wrong, or a warning naming what was
 * skipped, in bounded memory and time — through the same entry the report and the editor use.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { isHotpathError } from '../../../src/core/common/errors';
import { gunzipBounded } from '../../../src/core/pprof/gunzip';
import { loadProfile } from '../../../src/core/profile';
import { encodePprof, gzipPprof, type ProfileSpec } from '../../helpers/pprofBuilder';

const HOT: ProfileSpec = {
  types: [['samples', 'count'], ['cpu', 'nanoseconds']],
  samples: [
    { stack: [{ name: 'hot', file: '/srv/app/hot.js', line: 3 }, { name: 'main', file: '/srv/app/hot.js', line: 9 }], values: [10, 10_000_000] },
    { stack: [{ name: 'cold', file: '/srv/app/hot.js', line: 14 }, { name: 'main', file: '/srv/app/hot.js', line: 9 }], values: [2, 2_000_000] },
  ],
};

describe('pprof: bad input', function () {
  this.timeout(60_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-pprof-bad-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, bytes: Uint8Array) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, bytes);
    return file;
  };
  const load = (file: string, options = {}) => loadProfile(file, { sourceMaps: false, pathMap: { roots: [dir] }, ...options });
  const rejects = async (promise: Promise<unknown>, pattern: RegExp, code = 'PROFILE_INVALID') => {
    await assert.rejects(promise, (err: unknown) => {
      assert.ok(isHotpathError(err), String(err));
      assert.equal((err as { code: string }).code, code);
      assert.match((err as Error).message, pattern);
      return true;
    });
  };

  it('a valid profile loads (the reference the cases below break)', async () => {
    const model = await load(write('ok.pb.gz', gzipPprof(HOT)));
    assert.equal(model.durationUs, 12_000);
    assert.equal(model.sampleCount, 12);
    assert.deepEqual(model.warnings.filter((w) => w.code !== 'PATHS_NOT_FOUND'), []);
  });

  it('truncated protobuf: says it is truncated and where', async () => {
    const bytes = encodePprof(HOT);
    await rejects(load(write('cut.pprof', bytes.subarray(0, Math.floor(bytes.length * 0.6)))), /is truncated \(ends at byte \d+ inside/);
  });

  it('truncated gzip: says the gzip stream is cut off', async () => {
    const gz = gzipPprof(HOT);
    await rejects(load(write('cut.pb.gz', gz.subarray(0, gz.length - 12))), /gzip stream is truncated/);
  });

  it('corrupt protobuf: a wire type profile.proto never uses, field 0, an over-long varint, a bad string table', async () => {
    await rejects(load(write('wire.pprof', Buffer.from([0x0b, 0x00]))), /wire type 3/);
    await rejects(load(write('field0.pprof', Buffer.from([0x02, 0x00]))), /field number 0/);
    await rejects(load(write('varint.pprof', Buffer.from([0x48, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]))), /longer than 10 bytes/);
    // string_table = ["x"]: its first entry must be "".
    await rejects(load(write('strings.pprof', Buffer.from([0x32, 0x01, 0x78]))), /string_table\[0\] is not the empty string/);
    // A length that runs past its message, inside the file: a field of a 2-byte sample_type claiming 5 bytes.
    await rejects(load(write('inner.pprof', Buffer.from([0x0a, 0x02, 0x1a, 0x05, 0x32, 0x00, 0x32, 0x00, 0x32, 0x00]))), /claims 5 bytes, more than the enclosing message holds/);
  });

  it('gzip bomb: decompression stops at the cap with a clear error (here 1 MiB of 64 MiB of zeros)', async () => {
    const bomb = gzipSync(Buffer.alloc(64 << 20));
    assert.ok(bomb.length < 1 << 20, 'the bomb is small');
    await assert.rejects(gunzipBounded(bomb, 'bomb.pb.gz', { maxBytes: 1 << 20 }), /decompresses to more than 1 MB \(stopped there: a gzip bomb/);
  });

  it('a string table of two million entries costs offsets, not strings: it loads and names the frames', async () => {
    const base = Buffer.from(encodePprof(HOT));
    const parts: Buffer[] = [base];
    const entry = Buffer.from([0x32, 0x04, 0x6a, 0x75, 0x6e, 0x6b]); // "junk"
    parts.push(Buffer.concat(Array.from({ length: 2_000_000 }, () => entry)));
    const file = write('strings.pb.gz', gzipSync(Buffer.concat(parts)));
    const model = await load(file);
    assert.deepEqual(model.functions.map((f) => f.name).filter((n) => n !== '(root)').sort(), ['cold', 'hot', 'main']);
  });

  it('dangling ids: a sample naming no location and a line naming no function are skipped and said; duplicate and zero ids are errors', async () => {
    const bytes = Buffer.from(encodePprof(HOT));
    // A third sample naming location 99 (field 2 { field 1 packed [99], field 2 packed [1, 1000] }).
    const dangling = Buffer.from([0x12, 0x08, 0x0a, 0x01, 99, 0x12, 0x03, 0x01, 0xe8, 0x07]);
    // A location 50 whose line names function 77, and a sample on it.
    const loc = Buffer.from([0x22, 0x06, 0x08, 50, 0x22, 0x02, 0x08, 77]);
    const onLoc = Buffer.from([0x12, 0x08, 0x0a, 0x01, 50, 0x12, 0x03, 0x01, 0xe8, 0x07]);
    const model = await load(write('dangling.pprof', Buffer.concat([bytes, dangling, loc, onLoc])));
    const skipped = model.warnings.filter((w) => w.code === 'PPROF_DATA_SKIPPED').map((w) => w.message).join('\n');
    assert.match(skipped, /1 samples naming a location the profile does not define/);
    assert.match(skipped, /1 frames naming a function the profile does not define/);
    assert.equal(model.durationUs, 12_000 + 1, 'the sample whose frame was left out keeps its time (at the root)');
    // Location 1 twice.
    await rejects(load(write('dup.pprof', Buffer.concat([bytes, Buffer.from([0x22, 0x02, 0x08, 0x01])]))), /location id 1 appears more than once/);
    await rejects(load(write('zero.pprof', Buffer.concat([bytes, Buffer.from([0x22, 0x02, 0x08, 0x00])]))), /has id 0/);
  });

  it('a cycle in a stack (one location 50,000 deep: recursion) loads into a tree of that depth', async () => {
    const frame = { name: 'recurse', file: '/srv/app/r.js', line: 2 };
    const model = await load(write('deep.pb.gz', gzipPprof({ types: [['cpu', 'nanoseconds']], samples: [{ stack: Array.from({ length: 50_000 }, () => frame), values: [5_000_000] }] })));
    assert.equal(model.nodeCount, 50_001);
    const f = model.functions.findIndex((x) => x.name === 'recurse');
    assert.equal(model.functionTotalUs[f], 5000, 'recursion counts once');
  });

  it('zero values are nothing; negative values are skipped and said; a profile of zeros has no time', async () => {
    const spec: ProfileSpec = { ...HOT, samples: [...HOT.samples, { stack: HOT.samples[0].stack, values: [0, 0] }, { stack: HOT.samples[0].stack, values: [1, -5_000_000] }] };
    const model = await load(write('signs.pb.gz', gzipPprof(spec)));
    assert.equal(model.durationUs, 12_000);
    assert.match(model.warnings.map((w) => w.message).join('\n'), /1 samples with a negative cpu value/);
    const zeros = await load(write('zeros.pb.gz', gzipPprof({ ...HOT, samples: HOT.samples.map((s) => ({ ...s, values: [0, 0] })) })));
    assert.equal(zeros.sampleCount, 0);
    assert.equal(zeros.durationUs, 0);
  });

  it('sample types: one that does not exist is an error listing those that do; none at all is an error; a wrong value count is skipped', async () => {
    const file = write('types.pb.gz', gzipPprof(HOT));
    await rejects(load(file, { sampleType: 'alloc_space' }), /has no such sample type\. It has: samples \(count\), cpu \(nanoseconds\)/, 'INVALID_OPTION');
    await rejects(load(write('none.pb.gz', gzipPprof({ types: [], samples: [] }))), /declares no sample types/);
    const odd = await load(write('odd.pb.gz', gzipPprof({ ...HOT, samples: [...HOT.samples, { stack: HOT.samples[0].stack, values: [7] }] })));
    assert.match(odd.warnings.map((w) => w.message).join('\n'), /1 samples with a number of values other than the 2 sample types declared/);
  });

  it('an empty file and bytes that are neither JSON nor protobuf are errors', async () => {
    await rejects(load(write('empty.pb.gz', Buffer.alloc(0))), /empty/);
    await rejects(load(write('text.pprof', Buffer.from('hello world, not a profile'))), /not a valid pprof profile/);
  });
});
