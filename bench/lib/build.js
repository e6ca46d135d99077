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

/**
 * Bundles the pieces of the core a suite drives — `exports` maps a source path (relative to the repo
 * root) to the names it re-exports — through a .js entry (the project's tsconfig type-checks the
 * TypeScript under bench/), and loads the bundle.
 */
function bundleExports(name, exports) {
  const entry = path.join(ROOT, 'bench/.build', `${name}-entry.js`);
  require('node:fs').mkdirSync(path.dirname(entry), { recursive: true });
  const lines = Object.entries(exports).map(([from, names]) => `export { ${names.join(', ')} } from ${JSON.stringify(path.join(ROOT, from))};`);
  require('node:fs').writeFileSync(entry, `${lines.join('\n')}\n`);
  return require(bundle(path.relative(ROOT, entry), name));
}

module.exports = { bundle, bundleExports, ROOT };
