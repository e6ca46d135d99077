'use strict';
// A directory lock in Hotpath's tool cache, so two processes (two test runs, the e2e setup and the
// Node-versions installer) never install into one folder at once. mkdir is atomic; a lock whose owner
// died is taken over.
const fs = require('node:fs');
const path = require('node:path');

function withLock(root, name, fn) {
  const lock = path.join(root, `.${name}.lock`);
  fs.mkdirSync(root, { recursive: true });
  const deadline = Date.now() + 30 * 60_000;
  for (;;) {
    try {
      fs.mkdirSync(lock);
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let owner = NaN;
      try { owner = Number(fs.readFileSync(path.join(lock, 'pid'), 'utf8')); } catch { /* being written */ }
      let alive = true;
      if (Number.isInteger(owner) && owner > 0) { try { process.kill(owner, 0); } catch { alive = false; } }
      if (!alive) { fs.rmSync(lock, { recursive: true, force: true }); continue; }
      if (Date.now() > deadline) throw new Error(`${lock} is held by pid ${owner} for too long`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
  }
  try { return fn(); } finally { fs.rmSync(lock, { recursive: true, force: true }); }
}

module.exports = { withLock };
