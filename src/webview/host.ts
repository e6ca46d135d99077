/**
 * The front end's link to its host. In a VS Code webview: acquireVsCodeApi (messages, persisted state);
 * a chunked payload (initBegin + initChunk, see shared/flame/chunks.ts) is reassembled here and handed
 * on as one `init`. In the standalone report: no host; the embedded data is decoded and replayed as an
 * `init` message, and window messages are ignored (nothing else may feed this page data).
 */
import { PayloadAssembler } from '../shared/flame/chunks';
import { type EncodedHeader, decodePayload } from '../shared/flame/payload';
import { type DataChoice, type HostMessage, isHostMessage, type ViewState, type WebviewMessage } from '../shared/protocol';

/** What the app receives: host messages with chunked payloads already put back together. */
export type AppMessage = Extract<HostMessage, { type: 'init' | 'focus' }>;

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
  /**
   * Start delivering host messages to `onMessage`; `onProgress` hears of chunks of a large payload and
   * `onError` of data that cannot be shown (the standalone host throws instead: it has no messages).
   */
  connect(onMessage: (message: AppMessage) => void, onProgress?: (received: number, total: number) => void, onError?: (message: string) => void): void;
}

export function createHost(): Host {
  if (typeof acquireVsCodeApi === 'function') {
    const api = acquireVsCodeApi();
    return {
      kind: 'vscode',
      post: (m) => api.postMessage(m),
      savedState: () => (api.getState() as Partial<ViewState> | undefined) ?? undefined,
      saveState: (s) => api.setState(s),
      connect(onMessage, onProgress, onError) {
        const assembler = new PayloadAssembler();
        let pending: { canOpenSource: boolean; state?: Partial<ViewState>; choices?: DataChoice[] } | null = null;
        window.addEventListener('message', (event) => {
          const m: unknown = event.data;
          if (!isHostMessage(m)) return;
          try {
            if (m.type === 'initBegin') {
              assembler.begin(m);
              pending = { canOpenSource: m.canOpenSource, state: m.state, choices: m.choices };
              onProgress?.(0, m.chunks);
            } else if (m.type === 'initChunk') {
              const payload = assembler.add(m);
              const progress = assembler.progress;
              if (progress) onProgress?.(progress.received, progress.total);
              if (payload && pending) {
                performance.mark('hotpath-decoded');
                onMessage({ type: 'init', payload, canOpenSource: pending.canOpenSource, state: pending.state, choices: pending.choices });
                pending = null;
              }
            } else {
              onMessage(m);
            }
          } catch (err) {
            onError?.(err instanceof Error ? err.message : String(err));
          }
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
