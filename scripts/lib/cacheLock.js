'use strict';
// A directory lock in Hotpath's tool cache, so two processes (two test runs, the e2e setup, the
// Node-versions installer, `hotpath compare --node`) never install into one folder at once. The same
// protocol as src/core/runtimes/lock.ts (keep them in step): a folder holding `owner-<pid>` is renamed
// into place, which fails while another lock is there, so a lock
// always names its owner and an empty one left by a crash is replaced. A dead owner's lock is taken
// over by removing its owner file first: of two processes doing that, exactly one succeeds.
const fs = require('node:fs');
const path = require('node:path');

const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch (err) { return err.code === 'EPERM'; } };

function ownerFileOf(lock) {
  let names;
  try { names = fs.readdirSync(lock); } catch { return null; }
  const named = names.find((n) => /^owner-\d+$/.test(n));
  if (named) return { pid: Number(named.slice('owner-'.length)), file: named };
  let pid = NaN;
  try { pid = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8').trim()); } catch { /* none */ }
  return Number.isInteger(pid) && pid > 0 ? { pid, file: 'pid' } : { pid: NaN, file: null, empty: names.length === 0 };
}

// Only rmdir after the owner file is gone, never an emptying of the rest: a rename onto the now empty
// folder succeeds on Linux, so a new owner's lock may be in place already, and rmdir fails on it.
function dismantle(lock, ownerFile) {
  try { fs.unlinkSync(path.join(lock, ownerFile)); } catch { return; }
  try { fs.rmdirSync(lock); } catch { /* a new owner's lock already, or the old owner's pid file */ }
}

function withLock(root, name, fn) {
  const lock = path.join(root, `.${name}.lock`);
  fs.mkdirSync(root, { recursive: true });
  const deadline = Date.now() + 30 * 60_000;
  const ownerFile = `owner-${process.pid}`;
  const mine = `${lock}.${process.pid}-${Math.random().toString(36).slice(2)}.new`;
  fs.mkdirSync(mine);
  fs.writeFileSync(path.join(mine, ownerFile), '');
  try {
    for (;;) {
      try { fs.renameSync(mine, lock); break; } catch (err) {
        if (!['EEXIST', 'ENOTEMPTY', 'EPERM', 'EACCES', 'EISDIR'].includes(err.code)) throw err;
      }
      const owner = ownerFileOf(lock);
      if (!owner) continue;
      if (owner.file && !alive(owner.pid)) { dismantle(lock, owner.file); continue; }
      if (owner.empty) { try { if (Date.now() - fs.statSync(lock).mtimeMs > 10_000) fs.rmdirSync(lock); } catch { /* taken */ } }
      if (Date.now() > deadline) throw new Error(`${lock} is held by pid ${owner.pid} for too long`);
      sleep(owner.empty ? 100 : 1000);
    }
  } finally {
    fs.rmSync(mine, { recursive: true, force: true });
  }
  try { return fn(); } finally { dismantle(lock, ownerFile); }
}

module.exports = { withLock };
