'use strict';
// Bundles the TypeScript a benchmark needs into bench/.build/, so the bench does not depend on the
// app's own build (npm run build) having produced anything in particular.
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

/** Bundle `entry` (relative to the repo root) to bench/.build/<name>.js; returns the output path. */
function bundle(entry, name) {
  const esbuild = require(path.join(ROOT, 'node_modules/esbuild'));
  const outfile = path.join(ROOT, 'bench/.build', `${name}.js`);
  esbuild.buildSync({
    entryPoints: [path.join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: true, // so `--cpu-prof` runs of the bench point at the .ts sources
    logLevel: 'warning',
  });
  return outfile;
}

module.exports = { bundle, ROOT };
