/**
 * Agents' door in the real VS Code UI: what a user of code-server 1.139 without Copilot can see of it.
 * There the chat view has no model, so its tool picker cannot open; "MCP: List Servers" can (with the
 * AI features the harness turns off by default on): it lists Hotpath's server from the extension's
 * definition provider; starting it runs `hotpath mcp` from the installed extension, which VS Code
 * reports running with its 11 tools discovered. Nothing of it is left when code-server stops.
 * (The language-model tools themselves are tested in the extension host: test/vscode-host/zz-lm.test.ts.)
 */
import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { processesWith } from '../helpers/cli';
import { openWorkbench, runCommand, screenshot } from './helpers/workbench';
import { log, seconds, skipUnlessE2E, startUiSession, type UiSession } from './session';

const rows = (page: Page) => page.locator('.quick-input-widget .monaco-list-row');

/**
 * Opens "MCP: List Servers" until it lists Hotpath (the list is built when it opens; the extension
 * activates for it — onMcpCollection — and a collection that arrives later shows in the next list) and
 * returns the row's text ("Hotpath Stopped", "Hotpath Running"), the list left open.
 */
async function hotpathServerRow(page: Page, timeout = 90_000): Promise<string> {
  const deadline = Date.now() + timeout;
  for (;;) {
    await runCommand(page, 'MCP: List Servers', 90_000, { opensQuickInput: true });
    const row = rows(page).filter({ hasText: 'Hotpath' }).first();
    try {
      await row.waitFor({ timeout: 5_000 });
      return (await row.textContent()) ?? '';
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await closeList(page);
    }
  }
}

async function closeList(page: Page): Promise<void> {
  if (await page.locator('.quick-input-widget').isVisible()) await page.keyboard.press('Escape');
  await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
}

/**
 * From an open server list: Hotpath's row, then `action` in its menu ("Start Server", "Show Output").
 * False when the list changed under the clicks. The picker closes when the workbench takes focus (a
 * server starting, a notification, the extension activating), and a click on a row that went with it
 * waits for nothing (census44: a 60 s click timeout after the list showed "Hotpath Stopped"); the caller
 * lists again and reads the state afresh.
 */
async function chooseServerAction(page: Page, action: string): Promise<boolean> {
  try {
    await rows(page).filter({ hasText: 'Hotpath' }).first().click({ timeout: 10_000 });
    await rows(page).filter({ hasText: action }).first().click({ timeout: 10_000 });
    return true;
  } catch (err) {
    log(`the server list changed before "${action}" could be chosen (${String((err as Error).message).split('\n')[0]}); listing again`);
    return false;
  }
}

describe('VS Code end to end: Hotpath\'s MCP server in the MCP server list', function () {
  this.timeout(300_000);
  let s: UiSession;
  let page: Page;
  let failed = false;

  before(async function () {
    this.timeout(300_000);
    skipUnlessE2E(this);
    s = await startUiSession(undefined, { 'chat.disableAIFeatures': false });
    page = s.page;
    await openWorkbench(page, s.server.url, s.workspace.dir);
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') {
      failed = true;
      if (page) await screenshot(page, `agents-failed-${this.currentTest.title.replace(/\W+/g, '-').slice(0, 60)}`).catch(() => undefined);
    }
  });

  after(async () => {
    const dir = s?.workspace.dir;
    await s?.close(failed);
    if (dir) assert.deepEqual(processesWith(`mcp --cwd ${dir}`), [], 'no hotpath mcp left once code-server stopped');
  });

  it('"MCP: List Servers" lists Hotpath; started, it runs with its 11 tools discovered', async () => {
    const t = Date.now();
    const before = await hotpathServerRow(page);
    log(`server list: ${before} (${seconds(t)})`);
    assert.match(before, /^Hotpath\s*(Stopped|Running)/);
    await screenshot(page, 'agents-mcp-server-list');
    // Running: the state VS Code shows once the server answered its initialize. Each turn lists afresh
    // and acts on what the list shows now: Stopped → Start Server; Starting → list again.
    let state = before;
    for (const deadline = Date.now() + 120_000; !/Running/.test(state);) {
      if (/Stopped/.test(state)) await chooseServerAction(page, 'Start Server');
      if (Date.now() > deadline) break;
      // The list closes as the server starts: list again once it has (F1 into a closing picker is lost).
      await closeList(page);
      state = await hotpathServerRow(page);
    }
    assert.match(state, /^Hotpath\s*Running/, `the server runs (${state})`);
    log(`running (${seconds(t)})`);
    assert.ok(processesWith(`mcp --cwd ${s.workspace.dir}`).length >= 1, 'the server process is the extension\'s dist/cli.js mcp in the workspace');
    const discovered = page.locator('.panel .view-lines', { hasText: 'Discovered 11 tools' }).first();
    for (const deadline = Date.now() + 60_000; !(await chooseServerAction(page, 'Show Output'));) {
      assert.ok(Date.now() < deadline, 'the server\'s "Show Output" could be chosen');
      await closeList(page);
      await hotpathServerRow(page);
    }
    await discovered.waitFor({ timeout: 60_000 });
    await screenshot(page, 'agents-mcp-output');
    log(`MCP server running with 11 tools in ${seconds(t)}`);
  });
});
