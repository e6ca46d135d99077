'use strict';
// Headless Chromium for the benchmarks: Debian's /usr/bin/chromium (or $HOTPATH_CHROMIUM) through
// playwright-core, which never downloads a browser.
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./build');

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

function chromiumPath() {
  const found = [process.env.HOTPATH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean).find((c) => fs.existsSync(c));
  if (!found) throw new Error('the flame benchmark needs Chromium: apt-get install -y chromium (or set HOTPATH_CHROMIUM)');
  return found;
}

async function launch(extraArgs = []) {
  const { chromium } = require(path.join(ROOT, 'node_modules/playwright-core'));
  return chromium.launch({ executablePath: chromiumPath(), args: [...CHROMIUM_ARGS, ...extraArgs] });
}

/** JS heap of a page after a full GC, MB (V8's used size; typed-array backing stores are outside it). */
async function heapMB(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const usage = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  const mb = (v) => (v === undefined ? undefined : Math.round((v / 1048576) * 10) / 10);
  return { usedMB: mb(usage.usedSize), totalMB: mb(usage.totalSize), backingStorageMB: mb(usage.backingStorageSize) };
}

const percentile = (values, p) => {
  if (!values.length) return null;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

module.exports = { launch, heapMB, percentile, CHROMIUM_ARGS };
