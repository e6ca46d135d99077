/**
 * The front end's link to its host. In a VS Code webview: acquireVsCodeApi (messages, persisted state).
 * In the standalone report: no host; the embedded data is decoded and replayed as an `init` message,
 * and window messages are ignored (nothing else may feed this page data).
 */
import { type EncodedHeader, decodePayload } from '../shared/flame/payload';
import type { HostMessage, ViewState, WebviewMessage } from '../shared/protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare const acquireVsCodeApi: (() => VsCodeApi) | undefined;

export interface Host {
  readonly kind: 'vscode' | 'standalone';
  post(message: WebviewMessage): void;
  savedState(): Partial<ViewState> | undefined;
  saveState(state: ViewState): void;
  /** Start delivering host messages to `onMessage`. */
  connect(onMessage: (message: HostMessage) => void): void;
}

export function createHost(): Host {
  if (typeof acquireVsCodeApi === 'function') {
    const api = acquireVsCodeApi();
    return {
      kind: 'vscode',
      post: (m) => api.postMessage(m),
      savedState: () => (api.getState() as Partial<ViewState> | undefined) ?? undefined,
      saveState: (s) => api.setState(s),
      connect(onMessage) {
        window.addEventListener('message', (event) => {
          const m = event.data as HostMessage | undefined;
          if (m && (m.type === 'init' || m.type === 'focus')) onMessage(m);
        });
        api.postMessage({ type: 'ready' } satisfies WebviewMessage);
      },
    };
  }
  return {
    kind: 'standalone',
    post: () => undefined,
    savedState: () => undefined,
    saveState: () => undefined,
    connect(onMessage) {
      const header = document.getElementById('hotpath-header');
      const data = document.getElementById('hotpath-data');
      if (!header || !data) throw new Error('This report contains no profile data.');
      const payload = decodePayload(JSON.parse(header.textContent ?? '') as EncodedHeader, base64ToBytes((data.textContent ?? '').trim()));
      performance.mark('hotpath-decoded');
      onMessage({ type: 'init', payload, canOpenSource: false });
    },
  };
}

export function base64ToBytes(text: string): Uint8Array {
  const native = (Uint8Array as unknown as { fromBase64?: (s: string) => Uint8Array }).fromBase64;
  if (native) return native(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
