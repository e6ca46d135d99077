/**
 * The one protocol between a flamegraph host (the VS Code webview panel, or the standalone report's
 * bootstrap, which replays embedded data through the same messages) and the front end in src/webview.
 * Discriminated unions on `type`; imported by both sides. No vscode, no DOM.
 *
 * Sequence: the webview posts `ready`; the host answers with `init` (the payload, as typed arrays:
 * VS Code's postMessage structured-clones them, so nothing goes through JSON). The host may later send
 * `init` again (a new profile) or `focus`. The webview posts `openSource` when the user asks to see a
 * frame's code, and `error` when it cannot show the data.
 */
import type { FlamePayload } from './flame/payload';

export type { FlamePayload } from './flame/payload';

export type ViewKind = 'flamegraph' | 'flamechart' | 'sandwich';
export type ColorModeId = 'heat' | 'category' | 'diff' | (string & {});

/** UI state the webview persists (vscode getState/setState) and a host may preset. */
export interface ViewState {
  view: ViewKind;
  /** Root at the top (icicle) instead of the bottom (flamegraph). */
  icicle: boolean;
  color: ColorModeId;
  hideIdle: boolean;
  hideGc: boolean;
  hideNode: boolean;
  justMyCode: boolean;
  search: string;
  regex: boolean;
}

export const DEFAULT_VIEW_STATE: ViewState = {
  view: 'flamegraph', icicle: false, color: 'heat', hideIdle: true, hideGc: false, hideNode: false, justMyCode: false, search: '', regex: false,
};

/** Host → webview. */
export type HostMessage =
  | {
      type: 'init';
      payload: FlamePayload;
      /** Can the host open files? (VS Code: yes; the standalone report: no, it shows paths.) */
      canOpenSource: boolean;
      state?: Partial<ViewState>;
    }
  /** Select and reveal the hottest frame of a function (e.g. from a CodeLens "show in flamegraph"). */
  | { type: 'focus'; file: string; line: number; name?: string };

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  /** Open `file` at 1-based `line`/`column` (the original source when source-mapped). */
  | { type: 'openSource'; file: string; line: number; column: number }
  | { type: 'error'; message: string };

export function isWebviewMessage(value: unknown): value is WebviewMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { type?: unknown; file?: unknown; line?: unknown; column?: unknown; message?: unknown };
  switch (m.type) {
    case 'ready': return true;
    case 'openSource': return typeof m.file === 'string' && m.file !== '' && Number.isInteger(m.line) && Number.isInteger(m.column);
    case 'error': return typeof m.message === 'string';
    default: return false;
  }
}

/**
 * The messages a host posts to (re)load the webview with a payload, in order. Hosts call this instead
 * of building `init` themselves, so the protocol can split large payloads without host changes.
 */
export function initMessages(payload: FlamePayload, canOpenSource: boolean, state?: Partial<ViewState>): HostMessage[] {
  return [{ type: 'init', payload, canOpenSource, state }];
}
