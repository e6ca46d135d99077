#!/usr/bin/env node
// `npm run demo`: the whole Hotpath loop on the bundled example shop (examples/shop):
// baseline → profile → where the time goes → verify a fix (production mode) against the baseline.
'use strict';
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const cli = path.join(root, 'dist', 'cli.js');
const shop = path.join(root, 'examples', 'shop');
const load = ['--duration', '4', '--warmup', '1', '--connections', '8'];
const app = ['--', 'node', 'server.js'];
const portAnywhere = ['--env', 'PORT=0']; // the shop defaults to 3000; let it take any free port

function step(title, args) {
  process.stdout.write(`\n━━ ${title}\n$ hotpath ${args.join(' ')}\n\n`);
  const result = spawnSync(process.execPath, [cli, ...args, ...portAnywhere, ...app], { cwd: shop, stdio: 'inherit' });
  if (result.status !== 0 && !(args[0] === 'verify' && result.status === 3)) {
    process.stderr.write(`demo: step "${title}" failed (exit ${result.status})\n`);
    process.exit(result.status || 1);
  }
}

const started = Date.now();
step('1. Baseline: 3 independent runs of the shop under load (development mode, as `node server.js` starts it)',
  ['baseline', '--name', 'shop', '--runs', '3', ...load, '--cwd', shop]);
step('2. Profile under the same load: where does the time go?',
  ['profile', ...load, '--limit', '8', '--cwd', shop]);
process.stdout.write(`
━━ 3. The bottleneck: lib/template.js re-reads and re-compiles the page template on every request
   (tokenize → generate → new Function) because compiled templates are cached only when
   NODE_ENV=production — exactly like Express's view cache. The fix is to run in production mode.
`);
step('4. Verify the fix against the baseline (NODE_ENV=production)',
  ['verify', '--name', 'shop', ...load, '--env', 'NODE_ENV=production', '--cwd', shop]);
process.stdout.write(`\nDemo finished in ${Math.round((Date.now() - started) / 1000)} s. Profiles and baselines are in examples/shop/.hotpath/.\n`);
