// Bundles the extension host entry, the CLI and the target preload (all Node/CJS), and the flamegraph
// front end (browser/IIFE, dist/webview.js: loaded by the VS Code webview and inlined into the
// standalone HTML report). `--watch` rebuilds on change.
const esbuild = require('esbuild');
const fs = require('node:fs');

const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20', sourcemap: true, logLevel: 'warning' };

const builds = [
  // The `hotpath` command: a tiny entry that runs the CLI bundle through V8's code cache (entry.ts).
  { ...common, entryPoints: ['src/cli/entry.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, sourcemap: false },
  { ...common, entryPoints: ['src/cli/main.ts'], outfile: 'dist/hotpath-cli.js' },
  // The preload runs inside the user's app (every node process of the target's tree): no dependencies, tiny.
  { ...common, entryPoints: ['src/core/target/preload.ts'], outfile: 'dist/hotpath-preload.js', sourcemap: false },
  // The timing preload of `compare --script` runs: CPU time per node process, nothing else.
  { ...common, entryPoints: ['src/core/measure/timingPreload.ts'], outfile: 'dist/hotpath-timing-preload.js', sourcemap: false },
  // `hotpath startup`'s preload: timing, the module-load tree or a fine-interval profile of each start.
  { ...common, entryPoints: ['src/core/startup/preload.ts'], outfile: 'dist/hotpath-startup-preload.js', sourcemap: false },
  // `hotpath bench`'s preload: reads what tinybench / node:bench measured, inside the benchmark's process.
  { ...common, entryPoints: ['src/core/bench/preload.ts'], outfile: 'dist/hotpath-bench-preload.js', sourcemap: false },
  // The watchdog of a command Hotpath runs to completion (--prepare, installs): stops it if Hotpath is killed.
  { ...common, entryPoints: ['src/core/target/guard.ts'], outfile: 'dist/hotpath-guard.js', sourcemap: false },
  // The webview: no Node, no dependencies; minified because every HTML report carries a copy. The map
  // is written without a sourceMappingURL comment (the report inlines the script; nothing to fetch).
  {
    bundle: true, platform: 'browser', format: 'iife', target: ['chrome114', 'firefox115', 'safari16'], logLevel: 'warning',
    entryPoints: ['src/webview/main.ts'], outfile: 'dist/webview.js',
    minify: !process.env.HOTPATH_WEBVIEW_DEBUG, // HOTPATH_WEBVIEW_DEBUG=1: unminified, for profiling the page
    sourcemap: 'external', legalComments: 'none',
    tsconfig: 'src/webview/tsconfig.json',
  },
];
if (fs.existsSync('src/extension.ts')) {
  // The extension host loads extension.js at activation and the workflow engine (autocannon, the
  // inspector client: ~90% of the code) only on the first run, from dist/engine.js.
  builds.push({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode', './engine.js'], minify: true });
  builds.push({ ...common, entryPoints: ['src/vscode/workflow/engine.ts'], outfile: 'dist/engine.js', external: ['vscode'], minify: true });
  // Profiles opened in the editor are parsed in a worker thread, off the extension host's main thread.
  builds.push({ ...common, entryPoints: ['src/vscode/workflow/profileWorker.ts'], outfile: 'dist/profileWorker.js', minify: true });
}

/**
 * esbuild escapes non-ASCII characters in strings, templates, regular expressions and names, but keeps
 * some comments (inside class bodies) as written: one '→' in a comment makes V8 read the whole 4 MB
 * bundle as a two-byte string — slower to decode, scan and compile (~5% of `hotpath report`'s CPU).
 * Escaped as \\uXXXX they mean the same anywhere in JavaScript and keep the source map's columns valid:
 * such comments end their line.
 */
function asciiOnly(file) {
  const text = fs.readFileSync(file, 'utf8');
  if (/^[\x00-\x7f]*$/.test(text)) return;
  fs.writeFileSync(file, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

async function main() {
  const watch = process.argv.includes('--watch');
  for (const options of builds) {
    if (watch) await (await esbuild.context(options)).watch();
    else await esbuild.build(options);
  }
  if (!watch) {
    for (const options of builds) if (options.platform === 'node') asciiOnly(options.outfile);
    fs.chmodSync('dist/cli.js', 0o755);
  }
}
main().catch((err) => { console.error(err); process.exit(1); });
