/**
 * Files named by a profile are read only if regular, bounded in size and time, and cancellable: FIFOs,
 * devices and oversized files are refused without blocking a thread, so the event loop keeps turning.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancellationTokenSource } from '../../../src/core/common/cancellation';
import { FileRefused, readBoundedFile, readBoundedFileSync } from '../../../src/core/common/boundedRead';
import { isHotpathError, ErrorCode } from '../../../src/core/common/errors';

describe('bounded reads of profile-named files', function () {
  this.timeout(20_000);
  let dir: string;
  before(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-bounded-')); });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const fifo = (name: string) => { const p = path.join(dir, name); execFileSync('mkfifo', [p]); return p; };

  it('reads a regular file', async () => {
    const file = path.join(dir, 'a.js');
    fs.writeFileSync(file, 'x'.repeat(3 << 20));
    assert.equal((await readBoundedFile(file, { maxBytes: 4 << 20 })).length, 3 << 20);
    assert.equal(readBoundedFileSync(file, 4 << 20).length, 3 << 20);
  });

  it('refuses FIFOs, devices and directories at once, six FIFOs together included', async () => {
    const started = Date.now();
    const fifos = Array.from({ length: 6 }, (_, i) => fifo(`p${i}.map`));
    const targets = [...fifos, '/dev/zero', '/dev/urandom', '/dev/stdin', dir];
    const results = await Promise.allSettled(targets.map((f) => readBoundedFile(f, { maxBytes: 1 << 20 })));
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 'rejected', targets[i]);
      assert.ok((r as PromiseRejectedResult).reason instanceof FileRefused || (r as PromiseRejectedResult).reason.code === 'ENOENT', String((r as PromiseRejectedResult).reason));
    }
    assert.match(String((results[0] as PromiseRejectedResult).reason.message), /FIFO/);
    assert.match(String((results[6] as PromiseRejectedResult).reason.message), /device/);
    assert.throws(() => readBoundedFileSync(fifos[0], 1 << 20), /FIFO/);
    // Chance of failing on a correct product: < 1e-6 — each refusal is an fstat, not a read; 10 s is for a
    // reader that blocked on a FIFO (forever).
    assert.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms`);
    // The thread pool is free: an ordinary read still completes.
    const ok = path.join(dir, 'ok.txt');
    fs.writeFileSync(ok, 'fine');
    assert.equal((await readBoundedFile(ok, { maxBytes: 100 })).toString(), 'fine');
  });

  it('a second read of an unchanged file returns what the first read; a changed or replaced file is read again', async () => {
    const file = path.join(dir, 'memo.js');
    fs.writeFileSync(file, 'one');
    assert.equal((await readBoundedFile(file, { maxBytes: 100 })).toString(), 'one');
    assert.equal((await readBoundedFile(file, { maxBytes: 100 })).toString(), 'one');
    // Same size, new content: the change time (and usually mtime) differ, so it is read again.
    await new Promise((resolve) => setTimeout(resolve, 20));
    fs.writeFileSync(file, 'two');
    assert.equal((await readBoundedFile(file, { maxBytes: 100 })).toString(), 'two');
    // Replaced by another file (new inode) with the same size and times.
    const other = path.join(dir, 'memo-other.js');
    fs.writeFileSync(other, 'six');
    const { atime, mtime } = fs.statSync(file);
    fs.utimesSync(other, atime, mtime);
    fs.renameSync(other, file);
    assert.equal((await readBoundedFile(file, { maxBytes: 100 })).toString(), 'six');
    // The size cap still applies to what was read before.
    await assert.rejects(readBoundedFile(file, { maxBytes: 2 }), /over the 2-byte limit/);
  });

  it('refuses a file over the size cap without reading it', async () => {
    const big = path.join(dir, 'big.map');
    fs.writeFileSync(big, Buffer.alloc(2 << 20));
    await assert.rejects(readBoundedFile(big, { maxBytes: 1 << 20 }), /over the 1048576-byte limit/);
  });

  it('honours cancellation', async () => {
    const file = path.join(dir, 'c.js');
    fs.writeFileSync(file, 'x');
    const cts = new CancellationTokenSource();
    cts.cancel();
    await assert.rejects(readBoundedFile(file, { maxBytes: 10, token: cts.token }), (err) => isHotpathError(err, ErrorCode.Cancelled));
  });
});
