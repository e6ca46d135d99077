'use strict';
// Starts and stops code-server (a real VS Code server + workbench) on 127.0.0.1 for the end-to-end
// tests and `npm run try`. Each server gets a throwaway state directory (user data, extensions,
// logs, code-server's own config) and runs as the leader of its own process group, so stopping it
// signals the server and everything it started (extension hosts, terminals) at once.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { requireToolchain } = require('./toolchain');

/** Quiet, offline-friendly user settings: no welcome page, tips, telemetry, update checks, AI, git. */
const DEFAULT_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  // The profiled app listens on a local port; VS Code would offer to forward it in a notification.
  'remote.autoForwardPorts': false,
  'chat.disableAIFeatures': true,
  'git.enabled': false,
  'workbench.reduceMotion': 'on',
  'editor.cursorBlinking': 'solid',
};

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function groupAlive(pgid) {
  try { process.kill(-pgid, 0); return true; } catch { return false; }
}

/**
 * @param {object} options
 * @param {string} options.workspace folder to open
 * @param {string[]} [options.vsix] extensions to install before the server starts
 * @param {object} [options.settings] merged over DEFAULT_SETTINGS (user settings)
 * @param {string} [options.stateDir] default: a new temp dir, deleted by stop()
 * @param {number} [options.port] default: a free port
 * @param {number} [options.timeoutMs] how long to wait for the server to answer (default 90 s)
 * @param {boolean} [options.testDriver] honour extensionTestsPath/-DevelopmentPath in the URL payload
 *   (VS Code's smoke-test driver mode; note: it hides notification toasts)
 * @param {(line: string) => void} [options.log]
 */
async function startCodeServer(options) {
  const tc = requireToolchain();
  const log = options.log ?? (() => {});
  const workspace = path.resolve(options.workspace);
  const ownState = !options.stateDir;
  const state = path.resolve(options.stateDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-code-server-')));
  for (const d of ['user-data/User', 'extensions', 'xdg/config', 'xdg/data']) fs.mkdirSync(path.join(state, d), { recursive: true });
  fs.writeFileSync(path.join(state, 'user-data', 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...options.settings }, null, 2));
  const port = options.port ?? await freePort();
  fs.writeFileSync(path.join(state, 'config.yaml'), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  // code-server writes ~/.config/code-server and ~/.local/share/code-server unless XDG_* point
  // elsewhere; the extension host inherits these too. NODE_OPTIONS of a test runner (tsx) must not
  // leak into the server or the extension host.
  const env = { ...process.env, XDG_CONFIG_HOME: path.join(state, 'xdg', 'config'), XDG_DATA_HOME: path.join(state, 'xdg', 'data') };
  delete env.NODE_OPTIONS;
  for (const k of Object.keys(env)) if (k.startsWith('npm_') || k.startsWith('VSCODE_')) delete env[k];
  const common = ['--config', path.join(state, 'config.yaml'), '--user-data-dir', path.join(state, 'user-data'), '--extensions-dir', path.join(state, 'extensions')];

  for (const vsix of options.vsix ?? []) {
    const t = Date.now();
    const r = spawnSync(tc.node24, [tc.codeServerEntry, ...common, '--install-extension', path.resolve(vsix)], { env, encoding: 'utf8', timeout: 120_000 });
    fs.appendFileSync(path.join(state, 'install.log'), `${r.stdout}${r.stderr}`);
    if (r.status !== 0) throw new Error(`code-server --install-extension ${vsix} failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
    log(`installed ${path.basename(vsix)} in ${Date.now() - t} ms`);
  }

  const out = fs.openSync(path.join(state, 'code-server.log'), 'a');
  // detached: the server leads a new process group (setsid), which stop() signals as a whole.
  // --vscode-option enable-smoke-test-driver (options.testDriver, for extension-host test runs
  //   only): the workbench honours the URL "payload" (extensionDevelopmentPath,
  //   extensionTestsPath, extensionEnvironment) and calls window.codeAutomationExit when the
  //   suite ends. It also suppresses every notification toast (they go to the notification
  //   center only), so the UI tests and `npm run try` run without it.
  // --reconnection-grace-time 5: an extension host whose page went away exits after 5 s, not 3 h.
  const child = spawn(tc.node24, [tc.codeServerEntry, ...common,
    '--bind-addr', `127.0.0.1:${port}`, '--auth', 'none',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--reconnection-grace-time', '5',
    ...(options.testDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    workspace], { env, detached: true, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const pid = child.pid;
  let exited = false;
  child.on('exit', () => { exited = true; });
  child.unref();
  const url = `http://127.0.0.1:${port}`;
  const server = {
    url, pid, port, stateDir: state, workspace,
    logFile: path.join(state, 'code-server.log'),
    /** Stops the whole process group (TERM, then KILL after 5 s); removes a temp state dir. */
    async stop({ keepState = false } = {}) {
      if (groupAlive(pid)) {
        try { process.kill(-pid, 'SIGTERM'); } catch { /* gone */ }
        const deadline = Date.now() + 5000;
        while (groupAlive(pid) && Date.now() < deadline) await sleep(100);
        if (groupAlive(pid)) { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } }
        const killDeadline = Date.now() + 2000;
        while (groupAlive(pid) && Date.now() < killDeadline) await sleep(50);
      }
      if (ownState && !keepState) fs.rmSync(state, { recursive: true, force: true });
    },
  };

  const t = Date.now();
  const deadline = t + (options.timeoutMs ?? 90_000);
  for (;;) {
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch { /* not listening yet */ }
    if (exited || Date.now() > deadline) {
      const why = exited ? 'exited' : `did not answer within ${Math.round((Date.now() - t) / 1000)} s`;
      const text = fs.existsSync(server.logFile) ? fs.readFileSync(server.logFile, 'utf8').slice(-4000) : '';
      await server.stop({ keepState: true });
      throw new Error(`code-server ${why}; log ${server.logFile}:\n${text}`);
    }
    await sleep(200);
  }
  // The VS Code part of the server loads on the first workbench request: make it now so the
  // browser's first page load does not pay for it.
  await fetch(`${url}/?folder=${encodeURIComponent(workspace)}`, { signal: AbortSignal.timeout(options.timeoutMs ?? 90_000) }).catch(() => {});
  log(`code-server ${url} ready in ${Date.now() - t} ms (pid ${pid}, state ${state})`);
  return server;
}

module.exports = { startCodeServer, DEFAULT_SETTINGS, freePort };
