#!/usr/bin/env node
// `npm test` runs the flamegraph's browser tests in Debian's Chromium (playwright-core never downloads
// a browser). On a fresh machine, install it from Debian's packages the way @vscode/test-electron
// fetches VS Code: once, then reuse. Not root or no apt → say exactly what to install.
'use strict';
const fs = require('node:fs');
const { installDebianPackages } = require('./lib/debianPackages');

const candidates = [process.env.HOTPATH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
if (candidates.some((c) => fs.existsSync(c))) process.exit(0);

installDebianPackages(['chromium', 'fonts-dejavu-core'], {
  missing: 'Chromium is missing for the browser tests (or set HOTPATH_CHROMIUM to a Chromium binary).',
});
