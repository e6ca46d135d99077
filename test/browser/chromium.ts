/**
 * Headless Chromium for the browser tests: Debian's /usr/bin/chromium (or $HOTPATH_CHROMIUM) driven by
 * playwright-core. Never downloads a browser. Screenshots go to test-results/ (git-ignored).
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { flameHtml, scriptSafeJson } from '../../src/shared/webviewHtml';

export const ROOT = path.resolve(__dirname, '../..');
export const RESULTS = path.join(ROOT, 'test-results', 'flame');

export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

export function chromiumPath(): string {
  const candidates = [process.env.HOTPATH_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((c): c is string => !!c);
  const found = candidates.find((c) => fs.existsSync(c));
  if (!found) throw new Error('The browser tests need Chromium: `apt-get install -y chromium` (Debian), or set HOTPATH_CHROMIUM to its path.');
  return found;
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
}

export interface OpenedReport {
  page: Page;
  errors: string[];
}

/** Open a report file and wait for its first complete paint. Collects page errors and CSP reports. */
export async function openReport(browser: Browser, file: string, options: { colorScheme?: 'light' | 'dark'; width?: number; height?: number; initScript?: string } = {}): Promise<OpenedReport> {
  const page = await browser.newPage({ viewport: { width: options.width ?? 1280, height: options.height ?? 720 }, deviceScaleFactor: 2, colorScheme: options.colorScheme ?? 'light' });
  if (options.initScript) await page.addInitScript(options.initScript);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  // (The tests' own getImageData readbacks make Chromium suggest willReadFrequently: not the page's doing.)
  page.on('console', (m) => { if ((m.type() === 'error' || m.type() === 'warning') && !m.text().includes('willReadFrequently')) errors.push(`console.${m.type()}: ${m.text()}`); });
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) errors.push(`request: ${r.url()}`); });
  await page.goto(`file://${file}`);
  await page.waitForFunction(() => (globalThis as any).__hotpath?.firstPaintMs > 0, null, { timeout: 30_000 });
  return { page, errors };
}

/**
 * Runs an action that changes what the flamegraph draws and resolves once the canvas shows it. The app
 * applies input to its state at once but draws on the next animation frame, so a check of state alone
 * (a search's matches, the view) can pass while the canvas still holds the frame before.
 */
export async function redrawn(page: Page, action: () => Promise<unknown>): Promise<void> {
  const before = await page.evaluate(() => (globalThis as any).__hotpath.drawCount as number);
  await action();
  await page.waitForFunction((n) => (globalThis as any).__hotpath.drawCount > n && !(globalThis as any).__hotpath.drawPending, before, { polling: 'raf', timeout: 30_000 });
}

export interface DrawnBox { name: string; file: string; line: number; frame: number; x: number; y: number; w: number; h: number; matched: boolean; bucket: number; marked: boolean }

export function drawnBoxes(page: Page, pane = 'main'): Promise<DrawnBox[]> {
  return page.evaluate((p) => (globalThis as any).__hotpath.boxes(p), pane);
}

/** The widest drawn box of a function. */
export async function boxOf(page: Page, name: string, pane = 'main'): Promise<DrawnBox> {
  const boxes = (await drawnBoxes(page, pane)).filter((b) => b.name === name).sort((a, b) => b.w - a.w);
  if (!boxes.length) throw new Error(`no drawn box for ${name} in pane ${pane}`);
  return boxes[0];
}

/** The canvas pixel (RGBA) at a page point, read from the canvas itself. */
export function pixelAt(page: Page, x: number, y: number, pane = 'main'): Promise<[number, number, number, number]> {
  return page.evaluate(({ x, y, pane }) => {
    const canvas = document.querySelector(`[data-pane="${pane}"] canvas:not(.hp-overlay)`) as HTMLCanvasElement;
    const r = canvas.getBoundingClientRect();
    const scale = canvas.width / r.width;
    const d = canvas.getContext('2d')!.getImageData(Math.round((x - r.left) * scale), Math.round((y - r.top) * scale), 1, 1).data;
    return [d[0], d[1], d[2], d[3]] as [number, number, number, number];
  }, { x, y, pane });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(RESULTS, { recursive: true });
  const file = path.join(RESULTS, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/**
 * A page that stands in for VS Code's webview: the webview bundle with a minimal `acquireVsCodeApi`
 * that answers `ready` by posting `messages` in order through window.postMessage (structured clone, as
 * VS Code delivers them). Typed arrays travel through the page's JSON as base64 and are rebuilt first.
 * Same CSP and stylesheet as the real pages. Returns the HTML.
 */
export function hostPageHtml(messages: unknown[], title = 'Hotpath'): string {
  const json = JSON.stringify(messages, (_key, value: unknown) => {
    if (ArrayBuffer.isView(value)) {
      const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      return { $typed: value.constructor.name, base64: bytes.toString('base64') };
    }
    return value;
  });
  const harness = `(() => {
  const revive = (key, v) => {
    if (!v || typeof v !== 'object' || typeof v.$typed !== 'string') return v;
    const bin = atob(v.base64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new globalThis[v.$typed](bytes.buffer);
  };
  const messages = JSON.parse(document.getElementById('test-messages').textContent, revive);
  let state;
  window.__hostLog = [];
  window.__posted = 0;
  window.acquireVsCodeApi = () => ({
    postMessage(m) {
      window.__hostLog.push(m);
      if (m && m.type === 'ready') setTimeout(() => { for (const msg of messages) { window.postMessage(msg, '*'); window.__posted++; } }, 0);
    },
    getState: () => state,
    setState: (s) => { state = s; },
  });
})();\n`;
  const html = flameHtml({
    nonce: randomBytes(18).toString('base64'),
    title,
    script: { inline: harness + fs.readFileSync(path.join(ROOT, 'dist', 'webview.js'), 'utf8') },
    style: { inline: fs.readFileSync(path.join(ROOT, 'media', 'flame.css'), 'utf8') },
  });
  const data = `<script type="application/json" id="test-messages">${scriptSafeJson(json)}</script>\n`;
  return html.replace('<script nonce=', () => `${data}<script nonce=`);
}
