'use strict';
// Installing what the tests need from Debian's packages, the way @vscode/test-electron fetches VS Code:
// once, then reuse. Only as root with apt-get; otherwise it says exactly what to install and exits 1.
// One place for the apt steps of the ensure-* scripts and the e2e setup.
const { spawnSync } = require('node:child_process');

const canApt = () => process.getuid?.() === 0 && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;

/**
 * Installs `packages` with apt-get (update, then install without recommends), or exits 1: with
 * `missing` (what is missing and how else to provide it) when this process cannot use apt, with the
 * failing apt-get command when it fails. `log` gets one line before and after.
 */
function installDebianPackages(packages, { missing, log = (line) => console.error(`hotpath tests: ${line}`) }) {
  if (!canApt()) {
    log(`${missing} Install it as root: sudo apt-get install -y --no-install-recommends ${packages.join(' ')}`);
    process.exit(1);
  }
  const t = Date.now();
  log(`apt-get install ${packages.join(' ')} (once)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', '--no-install-recommends', ...packages]]) {
    const r = spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    if (r.status !== 0) { log(`apt-get ${args.join(' ')} failed (exit ${r.status}).`); process.exit(1); }
  }
  log(`apt-get done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

module.exports = { installDebianPackages };
