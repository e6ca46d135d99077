/**
 * Playwright helpers for the VS Code workbench that code-server serves, driven in Debian's headless
 * Chromium. Selectors were checked against code-server 4.139.1 (VS Code 1.139.1); see
 * scripts/e2e/README.md for why each one is what it is.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type FrameLocator, type Locator, type Page } from 'playwright-core';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const toolchain = require('../../../scripts/e2e/toolchain.js') as { chromiumPath(): string | null };

export const ROOT = path.resolve(__dirname, '../../..');
export const RESULTS = path.join(ROOT, 'test-results', 'e2e');
export const EXTENSION_ID = 'hotpath.hotpath';
/**
 * A change as Hotpath prints it (formatSignedPct): `+18%`, `−3.4%`, or `0.0%` with no sign when it rounds
 * to zero — an unchanged app verified against its own baseline prints exactly that.
 */
export const CHANGE = String.raw`(?:[+−-][\d,.]+|0(?:\.0+)?)%`;

const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export function launchBrowser(): Promise<Browser> {
  const executablePath = toolchain.chromiumPath();
  if (!executablePath) throw new Error('Chromium not found: `apt-get install -y chromium` (Debian) or set HOTPATH_CHROMIUM.');
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}

/** Workbench URL for a folder on the server; `payload` pairs are read by the workbench (dev/test mode). */
export function workbenchUrl(baseUrl: string, folder: string, payload?: [string, string][]): string {
  let url = `${baseUrl}/?folder=${encodeURIComponent(folder)}`;
  if (payload?.length) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  return url;
}

/** code-server's remote authority ("remote"); Node extension host files are vscode-remote://<it>/<path>. */
export async function remoteAuthority(baseUrl: string, folder: string): Promise<string> {
  const html = await (await fetch(workbenchUrl(baseUrl, folder))).text();
  return /&quot;remoteAuthority&quot;:&quot;([^&]+)&quot;/.exec(html)?.[1] ?? 'remote';
}

/**
 * Opens the workbench and waits for its status bar. Not for the page's `load` event: on a busy
 * 2-core machine that alone can exceed 30 s.
 */
export async function openWorkbench(page: Page, baseUrl: string, folder: string, options: { timeout?: number; payload?: [string, string][] } = {}): Promise<void> {
  const timeout = options.timeout ?? 120_000;
  await page.goto(workbenchUrl(baseUrl, folder, options.payload), { waitUntil: 'domcontentloaded', timeout });
  await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout });
}

const quickInput = (page: Page) => page.locator('.quick-input-widget input');

/**
 * Opens a quick input with `key`, types `text` and clicks the row containing `rowText`. Retries:
 * a key press right after the workbench renders can be lost, and contributed commands appear only
 * once the remote extension host has registered the extension. Clicking (not Enter) matters: Enter
 * picks the first fuzzy match, which may be another command.
 */
async function pick(page: Page, key: string, text: string, rowText: string | RegExp, timeout: number, opensQuickInput = false): Promise<void> {
  const deadline = Date.now() + timeout;
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: rowText }).first();
  for (;;) {
    try {
      await page.keyboard.press(key);
      await quickInput(page).waitFor({ timeout: 5_000 });
      // Bounded like the waits around it: a key pressed while a picker is closing can find its input on
      // the way out, and fill() would wait Playwright's whole default (60 s, seen after "Start Server").
      await quickInput(page).fill(text, { timeout: 5_000 });
      await row.waitFor({ timeout: 5_000 });
      break;
    } catch (err) {
      await page.keyboard.press('Escape').catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`"${String(rowText)}" not found after ${key} "${text}": ${(err as Error).message}`);
      await page.waitForTimeout(1_000);
    }
  }
  // Not retried: picking has side effects (runs the command, opens the file).
  await row.click();
  // A command that opens a picker of its own keeps the quick input on screen (with its own placeholder).
  if (!opensQuickInput) await quickInput(page).waitFor({ state: 'hidden' });
}

/** Runs a command from the command palette (F1) by the title it shows there ("Hotpath: …"). */
export async function runCommand(page: Page, label: string, timeout = 90_000, options: { opensQuickInput?: boolean } = {}): Promise<void> {
  // Exact title, so "Hotpath: Profile with Load" never picks "Hotpath: Profile Script (no HTTP)".
  await pick(page, 'F1', `>${label}`, new RegExp(`^\\s*${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`), timeout, options.opensQuickInput);
}

/**
 * Opens a workspace file with Quick Open (Ctrl+P) and waits for its active editor tab.
 *
 * Quick Open first lists what was opened recently, then re-renders with the file search's results, and
 * rows move while it does, so a click as soon as the file's row appears can land on another row or on
 * none (seen in CI and locally). And the file need not be first: the list can read ["Flamegraph — ….
 * cpuprofile  recently opened", "template.js lib"], so Enter would pick the flamegraph. This waits until
 * the list has stopped changing with the file's row in it, then clicks that row. A miss is logged with
 * what the quick input showed and retried from a closed Quick Open (Ctrl+P in an open one moves to the
 * next row instead).
 */
export async function openFile(page: Page, relativePath: string, timeout = 90_000): Promise<void> {
  const name = path.basename(relativePath);
  const tab = page.locator('.tabs-container .tab.active', { hasText: name });
  const deadline = Date.now() + timeout;
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press('Control+P');
      await quickInput(page).waitFor({ timeout: 5_000 });
      await quickInput(page).fill(relativePath, { timeout: 5_000 });
      await rowsSettled(page, name, 10_000);
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: name }).first().click();
      await tab.waitFor({ timeout: 15_000 });
      break;
    } catch (err) {
      console.log(`    # Quick Open "${relativePath}", attempt ${attempt}: ${(err as Error).message.split('\n')[0]} (${await quickInputState(page)})`);
      if (Date.now() > deadline) throw err;
      await page.keyboard.press('Escape');
      await quickInput(page).waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
    }
  }
  await page.locator('.editor-instance .monaco-editor').first().waitFor({ timeout });
}

/** Waits until a row of the quick input names `text` and the rows have not changed for 300 ms. */
async function rowsSettled(page: Page, text: string, timeout: number): Promise<void> {
  const rows = () => page.locator('.quick-input-widget .monaco-list-row').allTextContents();
  const deadline = Date.now() + timeout;
  let last = '';
  let since = Date.now();
  for (;;) {
    const now = await rows();
    const key = JSON.stringify(now);
    if (key !== last) { last = key; since = Date.now(); }
    if (now.some((r) => r.includes(text)) && Date.now() - since >= 300) return;
    if (Date.now() > deadline) throw new Error(`Quick Open's rows did not settle with "${text}" among them (rows ${key})`);
    await page.waitForTimeout(50);
  }
}

/** What the quick input shows and where the focus is: for the log when a pick does not take. */
function quickInputState(page: Page): Promise<string> {
  return page.evaluate(() => {
    const widget = document.querySelector<HTMLElement>('.quick-input-widget');
    const input = widget?.querySelector('input');
    const rows = [...(widget?.querySelectorAll('.monaco-list-row') ?? [])].map((r) => (r.textContent ?? '').trim()).slice(0, 5);
    const focus = document.activeElement;
    const where = focus ? `${focus.tagName.toLowerCase()}${focus.className && typeof focus.className === 'string' ? `.${focus.className.split(/\s+/).slice(0, 2).join('.')}` : ''}` : 'none';
    return `quick input ${widget && widget.style.display !== 'none' ? `shown, value ${JSON.stringify(input?.value ?? '')}, rows ${JSON.stringify(rows)}` : 'hidden'}; focus on ${where}`;
  }).catch((err: Error) => `state unreadable: ${err.message}`);
}

/** Moves the cursor of the active editor to a 1-based line with "Go to Line" (Ctrl+G). */
export async function goToLine(page: Page, line: number): Promise<void> {
  await page.keyboard.press('Control+G');
  await quickInput(page).waitFor();
  await quickInput(page).fill(`:${line}`);
  await page.keyboard.press('Enter');
  await quickInput(page).waitFor({ state: 'hidden' });
  await cursorLine(page, line);
}

/** Waits until the status bar's "Ln N, Col M" entry shows line `line`. */
export async function cursorLine(page: Page, line: number, timeout = 30_000): Promise<void> {
  await page.locator('#status\\.editor\\.selection', { hasText: new RegExp(`Ln ${line},`) }).waitFor({ timeout });
}

/** The status bar entry created with createStatusBarItem(id): DOM id "<publisher>.<name>.<id>". */
export function statusItem(page: Page, id: string): Locator {
  return page.locator(`.statusbar-item[id="${EXTENSION_ID}.${id}"]`);
}

export async function textOf(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/** Waits until `locator`'s text matches; returns the text. The error names the last text seen. */
export async function waitForText(locator: Locator, pattern: RegExp, timeout: number, onPoll?: (text: string) => void): Promise<string> {
  const deadline = Date.now() + timeout;
  let last = '';
  for (;;) {
    last = (await locator.count()) ? await textOf(locator.first()) : '<absent>';
    onPoll?.(last);
    if (pattern.test(last)) return last;
    if (Date.now() > deadline) throw new Error(`text ${pattern} not seen within ${timeout} ms; last: "${last}"`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A notification toast containing `text`. */
export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator('.notifications-toasts .notification-toast', { hasText: text }).first();
}

/** The progress notification of a run (the toast titled `title` that has a Cancel button). */
export function progressToast(page: Page, title: string): Locator {
  return page.locator('.notifications-toasts .notification-toast', { hasText: title })
    .filter({ has: page.locator('.monaco-button', { hasText: 'Cancel' }) }).first();
}

/** The NODE_ENV preflight warning (not any other toast that mentions NODE_ENV). */
export function nodeEnvWarning(page: Page): Locator {
  return page.locator('.notifications-toasts .notification-toast', { hasText: 'NODE_ENV' })
    .filter({ has: page.locator('.monaco-button', { hasText: 'Run as Is' }) }).first();
}

/** A button of a notification toast. */
export function toastButton(notification: Locator, label: string): Locator {
  return notification.locator('.monaco-button', { hasText: label }).first();
}

/** Clears all notifications (so the next step's toasts are unambiguous). */
export async function clearToasts(page: Page): Promise<void> {
  await runCommand(page, 'Notifications: Clear All Notifications');
  await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'detached', timeout: 10_000 }).catch(() => undefined);
}

/**
 * The document of the visible webview of this extension: an outer iframe (`src` has the extension
 * id) hosts an inner one whose element id becomes `active-frame` once loaded.
 */
export function webview(page: Page): FrameLocator {
  return page.locator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).filter({ visible: true }).first()
    .contentFrame().locator('iframe#active-frame').contentFrame();
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}
