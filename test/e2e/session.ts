/**
 * One end-to-end session: the toolchain check, a fresh workspace (the shop by default) opened in the
 * code-server this mocha run shares between its UI suites (the packaged extension installed once), and
 * a headless Chromium page of its own on that workbench. Cleans up the page, the workspace, and (as a
 * last resort, by pid) any target process a failed test left behind; keeps the server's logs when a
 * test failed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { processesWith } from '../helpers/cli';
import { launchBrowser, RESULTS } from './helpers/workbench';
import { shopWorkspace, type ShopWorkspace } from './helpers/workspace';

/* eslint-disable @typescript-eslint/no-require-imports */
const toolchain = require('../../scripts/e2e/toolchain.js') as { requireToolchain(): unknown; isReady(): boolean };
const { startCodeServer } = require('../../scripts/e2e/code-server.js') as {
  startCodeServer(o: { workspace: string; vsix?: string[]; log?: (l: string) => void; timeoutMs?: number; settings?: Record<string, unknown> }): Promise<CodeServer>;
};
const { packageVsix } = require('../../scripts/e2e/package.js') as { packageVsix(o: { out: string; quiet: boolean }): string };
/* eslint-enable @typescript-eslint/no-require-imports */

export interface CodeServer {
  url: string;
  pid: number;
  stateDir: string;
  workspace: string;
  logFile: string;
  stop(o?: { keepState?: boolean }): Promise<void>;
}

/**
 * Skips the calling suite where the toolchain cannot exist (not Linux x64, or HOTPATH_E2E=skip);
 * on Linux x64 a missing toolchain is an error, not a skip.
 */
export function skipUnlessE2E(ctx: Mocha.Context): void {
  if (process.env.HOTPATH_E2E === 'skip' || process.platform !== 'linux' || process.arch !== 'x64') {
    console.log(`    # VS Code e2e skipped (${process.env.HOTPATH_E2E === 'skip' ? 'HOTPATH_E2E=skip' : `${process.platform}-${process.arch}`})`);
    ctx.skip();
  }
  toolchain.requireToolchain();
}

export const log = (msg: string) => console.log(`    # ${msg}`);

export function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

export interface UiSession {
  server: CodeServer;
  workspace: ShopWorkspace;
  browser: Browser;
  page: Page;
  vsixBytes: number;
  close(failed: boolean): Promise<void>;
}

/** What every UI suite of one mocha run shares: the packaged extension, one code-server, one Chromium. */
interface SharedUi { server: CodeServer; browser: Browser; vsixBytes: number; tmp: string }
let shared: Promise<SharedUi> | undefined;

/**
 * Packages the extension and starts code-server with it and Chromium, once per mocha run: the UI suites
 * open their own folders (`?folder=`) in pages of their own browser contexts on the same server. What the
 * extension remembers is per folder (workspaceState), and each page starts a fresh workbench, so suites
 * do not see each other. Stopped by the root `after` hook below (and on exit, as a last resort).
 */
function sharedUi(): Promise<SharedUi> {
  shared ??= startUi({}, 'shared by this run\'s UI suites').catch((err) => { shared = undefined; throw err; });
  return shared;
}

/**
 * Packages (or takes the run's package) and starts code-server with it, with these user settings over
 * the quiet defaults, and Chromium. A suite that needs other user settings (the agents' suite turns the
 * AI features on) gets a server of its own, so the settings cannot reach the other suites.
 */
async function startUi(settings: Record<string, unknown>, whose: string): Promise<SharedUi> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-e2e-vsix-'));
  const home = path.join(tmp, 'home');
  fs.mkdirSync(home);
  let server: CodeServer | undefined;
  try {
    let t = Date.now();
    // `npm test` packages once for all its real-VS-Code processes (scripts/test/run.js); alone, this does.
    const prepared = process.env.HOTPATH_E2E_VSIX;
    const vsix = prepared && fs.existsSync(prepared) ? prepared : packageVsix({ out: path.join(tmp, 'hotpath.vsix'), quiet: true });
    const vsixBytes = fs.statSync(vsix).size;
    log(vsix === prepared ? `the run's vsix: ${(vsixBytes / 1024).toFixed(0)} KiB` : `vsce package: ${(vsixBytes / 1024).toFixed(0)} KiB in ${seconds(t)}`);
    t = Date.now();
    server = await startCodeServer({ workspace: home, vsix: [vsix], log, settings });
    stopAtExit(server);
    log(`code-server with the vsix installed up in ${seconds(t)} (${whose})`);
    const browser = await launchBrowser();
    return { server, browser, vsixBytes, tmp };
  } catch (err) {
    await server?.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

async function stopUi(ui: SharedUi): Promise<void> {
  await ui.browser.close().catch(() => undefined);
  await ui.server.stop();
  fs.rmSync(ui.tmp, { recursive: true, force: true });
}

/** The server is the leader of its own process group: a run that ends without the hook still stops it. */
function stopAtExit(server: CodeServer): void {
  process.once('exit', () => { try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ } });
}

// Root hook (this module is loaded by the UI suites' files): stop what they shared once all have run.
after(async function () {
  this.timeout(60_000);
  if (!shared) return;
  const ui = await shared.catch(() => undefined);
  shared = undefined;
  if (ui) await stopUi(ui);
});

/**
 * A fresh workspace (the shop by default) opened by the run's code-server in a new browser context and
 * page; with `settings`, by a code-server of its own with those user settings (stopped by `close`).
 */
export async function startUiSession(makeWorkspace: () => ShopWorkspace = () => shopWorkspace(), settings: Record<string, unknown> = {}): Promise<UiSession> {
  const workspace = makeWorkspace();
  let own: SharedUi | undefined;
  try {
    own = Object.keys(settings).length ? await startUi(settings, 'this suite\'s own: its user settings differ') : undefined;
    const { server, browser, vsixBytes } = own ?? await sharedUi();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000); // generous: other work shares the 2 cores
    page.on('pageerror', (err) => console.error(`    [pageerror] ${err.message}`));
    return {
      server, workspace, browser, page, vsixBytes,
      async close(failed: boolean) {
        await context.close().catch(() => undefined);
        if (failed) {
          // Keep the server's logs (the extension host logs are under user-data/logs) next to the screenshots.
          const logs = path.join(RESULTS, 'code-server-logs', path.basename(workspace.dir));
          fs.rmSync(logs, { recursive: true, force: true });
          fs.mkdirSync(logs, { recursive: true });
          fs.cpSync(path.join(server.stateDir, 'user-data', 'logs'), logs, { recursive: true, force: true });
          fs.copyFileSync(server.logFile, path.join(logs, 'code-server.log'));
          log(`code-server logs kept in ${path.relative(process.cwd(), logs)}`);
        }
        killLeftovers(workspace.marker);
        workspace.remove();
        if (own) await stopUi(own);
      },
    };
  } catch (err) {
    if (own) await stopUi(own);
    workspace.remove();
    throw err;
  }
}

/** Last resort after the tests asserted: a target a failed test left running is killed by its pid. */
export function killLeftovers(mark: string): void {
  for (const pid of processesWith(mark)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}
