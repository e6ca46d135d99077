#!/usr/bin/env node
'use strict';
// `npm run package`: packages the built extension (npm run build first) as hotpath-<version>.vsix in
// the repository root, offline, with @vscode/vsce. --no-dependencies: esbuild bundled everything
// into dist/, so node_modules stays out (.vscodeignore lists what goes in).
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');

/** Packages the extension; returns the .vsix path. Throws with vsce's output on failure. */
function packageVsix({ out, quiet = false } = {}) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const missing = ['dist/extension.js', 'dist/engine.js', 'dist/cli.js', 'dist/hotpath-cli.js', 'dist/hotpath-preload.js', 'dist/hotpath-startup-preload.js', 'dist/hotpath-bench-preload.js', 'dist/hotpath-timing-preload.js', 'dist/hotpath-guard.js', 'dist/profileWorker.js', 'dist/webview.js'].filter((f) => !fs.existsSync(path.join(ROOT, f)));
  if (missing.length) throw new Error(`not built (run npm run build): ${missing.join(', ')} missing`);
  const file = path.resolve(out ?? path.join(ROOT, `${pkg.name}-${pkg.version}.vsix`));
  const vsce = path.join(path.dirname(require.resolve('@vscode/vsce/package.json', { paths: [ROOT] })), 'vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', file],
    { cwd: ROOT, encoding: 'utf8', stdio: quiet ? 'pipe' : ['ignore', 'inherit', 'inherit'], timeout: 180_000 });
  if (r.status !== 0) throw new Error(`vsce package failed (exit ${r.status}${r.signal ? `, ${r.signal}` : ''})\n${r.stdout ?? ''}${r.stderr ?? ''}`);
  return file;
}

module.exports = { packageVsix, ROOT };

if (require.main === module) {
  try {
    const t = Date.now();
    const file = packageVsix({ out: process.argv[2] });
    console.log(`${path.relative(process.cwd(), file)}: ${(fs.statSync(file).size / 1024).toFixed(0)} KiB in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
