/**
 * Entry of the webview bundle (dist/webview.js, browser IIFE). Works in a VS Code webview (data
 * arrives by postMessage, see src/shared/protocol.ts) and in the standalone HTML report (data embedded
 * in non-executable <script type="application/json|octet-stream"> blocks).
 */
import { App } from './app';
import { createHost } from './host';
import { h, replaceChildren } from './dom';

function start(): void {
  const root = document.getElementById('hotpath-root') ?? document.body;
  const host = createHost();
  const app = new App(root, host);
  // Read-only hooks for tests and the benchmark.
  (window as unknown as { __hotpath: unknown }).__hotpath = app;
  const fail = (message: string) => {
    replaceChildren(root, h('p', { class: 'hp-message', role: 'alert' }, `Hotpath could not show this profile: ${message}`));
    host.post({ type: 'error', message });
  };
  try {
    host.connect((message) => app.handle(message), (received, total) => app.loading(received, total), fail);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
