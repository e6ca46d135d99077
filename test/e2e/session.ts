/**
 * One end-to-end session: the toolchain check, a code-server with the packaged extension installed
 * and a fresh shop workspace opened, and one headless Chromium page on its workbench. Cleans up the
 * browser, the server's process group, the workspace, and (as a last resort, by pid) any target
 * process a failed test left behind. Keeps the server's state (logs) when a test failed.
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

/** Packages the extension, starts code-server with it on a fresh workspace (the shop by default), opens Chromium. */
export async function startUiSession(makeWorkspace: () => ShopWorkspace = () => shopWorkspace(), settings: Record<string, unknown> = {}): Promise<UiSession> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-e2e-vsix-'));
  const workspace = makeWorkspace();
  let server: CodeServer | undefined;
  let browser: Browser | undefined;
  try {
    let t = Date.now();
    const vsix = packageVsix({ out: path.join(tmp, 'hotpath.vsix'), quiet: true });
    const vsixBytes = fs.statSync(vsix).size;
    log(`vsce package: ${(vsixBytes / 1024).toFixed(0)} KiB in ${seconds(t)}`);
    t = Date.now();
    server = await startCodeServer({ workspace: workspace.dir, vsix: [vsix], log, settings });
    log(`code-server with the vsix installed up in ${seconds(t)}`);
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.setDefaultTimeout(60_000); // generous: other work shares the 2 cores
    page.on('pageerror', (err) => console.error(`    [pageerror] ${err.message}`));
    const s = server;
    const b = browser;
    return {
      server: s, workspace, browser: b, page, vsixBytes,
      async close(failed: boolean) {
        await b.close().catch(() => undefined);
        await s.stop({ keepState: failed });
        if (failed) {
          // Keep the server's logs (the extension host log is under user-data/logs) next to the screenshots.
          const logs = path.join(RESULTS, 'code-server-logs');
          fs.rmSync(logs, { recursive: true, force: true });
          fs.cpSync(path.join(s.stateDir, 'user-data', 'logs'), logs, { recursive: true, force: true });
          fs.copyFileSync(s.logFile, path.join(logs, 'code-server.log'));
          log(`code-server logs kept in ${path.relative(process.cwd(), logs)}`);
          fs.rmSync(s.stateDir, { recursive: true, force: true });
        }
        killLeftovers(workspace.marker);
        workspace.remove();
        fs.rmSync(tmp, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await browser?.close().catch(() => undefined);
    await server?.stop();
    workspace.remove();
    fs.rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

/** Last resort after the tests asserted: a target a failed test left running is killed by its pid. */
export function killLeftovers(mark: string): void {
  for (const pid of processesWith(mark)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}
