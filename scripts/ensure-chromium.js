#!/usr/bin/env node
// `npm test` runs the flamegraph's browser tests in Debian's Chromium (playwright-core never downloads
// a browser). On a fresh machine, install it from Debian's packages the way @vscode/test-electron
// fetches VS Code: once, then reuse. Not root or no apt → say exactly what to install.
'use strict';
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');

const candidates = [process.env.HOTPATH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
if (candidates.some((c) => fs.existsSync(c))) process.exit(0);

const canApt = process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
if (!canApt) {
  console.error('hotpath tests: Chromium is missing. Install it (Debian/Ubuntu: `sudo apt-get install -y chromium fonts-dejavu-core`) or set HOTPATH_CHROMIUM to a Chromium binary.');
  process.exit(1);
}
console.error('hotpath tests: installing Debian\'s chromium for the browser tests (once)…');
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium', 'fonts-dejavu-core']]) {
  const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  if (r.status !== 0) { console.error(`hotpath tests: apt-get ${args.join(' ')} failed (exit ${r.status}).`); process.exit(1); }
}
