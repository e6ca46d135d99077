/**
 * The one protocol between a flamegraph host (the VS Code webview panel, or the standalone report's
 * bootstrap, which replays embedded data through the same messages) and the front end in src/webview.
 * Discriminated unions on `type`; imported by both sides. No vscode, no DOM.
 *
 * Sequence: the webview posts `ready`; the host answers with the messages of initMessages() in order:
 * one `init` (the payload, as typed arrays: VS Code's postMessage structured-clones them, so nothing
 * goes through JSON) or, for a large payload, `initBegin` and its `initChunk`s, which the webview
 * reassembles before drawing (see flame/chunks.ts). The host may later send a new payload the same way
 * or `focus`. The webview posts `openSource` when the user asks to see a frame's code, and `error` when
 * it cannot show the data.
 */
import { type ChunkedBegin, type PayloadChunk, splitPayload } from './flame/chunks';
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
  /** Fold each run of frames of one npm package into a single frame named after the package. */
  byPackage: boolean;
  search: string;
  regex: boolean;
}

export const DEFAULT_VIEW_STATE: ViewState = {
  view: 'flamegraph', icicle: false, color: 'heat', hideIdle: true, hideGc: false, hideNode: false, justMyCode: false, byPackage: false, search: '', regex: false,
};

/** A dataset the host can show in the same panel (CPU time, allocations): the webview offers a switch. */
export interface DataChoice {
  id: string;
  label: string;
  active: boolean;
}

/** Host → webview. */
export type HostMessage =
  | {
      type: 'init';
      payload: FlamePayload;
      /** Can the host open files? (VS Code: yes; the standalone report: no, it shows paths.) */
      canOpenSource: boolean;
      state?: Partial<ViewState>;
      /** Other datasets of the same run the user can switch to (the webview posts `showData`). */
      choices?: DataChoice[];
    }
  /** A large payload: its header; `chunks` initChunk messages follow. Same meaning as `init` once complete. */
  | ({ type: 'initBegin'; canOpenSource: boolean; state?: Partial<ViewState>; choices?: DataChoice[] } & ChunkedBegin)
  | ({ type: 'initChunk' } & PayloadChunk)
  /** Select and reveal the hottest frame of a function (e.g. from a CodeLens "show in flamegraph"). */
  | { type: 'focus'; file: string; line: number; name?: string };

const HOST_MESSAGE_TYPES = new Set(['init', 'initBegin', 'initChunk', 'focus']);

/** A message the webview should handle (the page may also receive unrelated window messages). */
export function isHostMessage(value: unknown): value is HostMessage {
  return typeof value === 'object' && value !== null && HOST_MESSAGE_TYPES.has((value as { type?: unknown }).type as string);
}

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready' }
  /** Open `file` at 1-based `line`/`column` (the original source when source-mapped). */
  | { type: 'openSource'; file: string; line: number; column: number }
  /** Show another dataset of the run (one of the `choices` the host offered). */
  | { type: 'showData'; id: string }
  | { type: 'error'; message: string };

export function isWebviewMessage(value: unknown): value is WebviewMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as { type?: unknown; file?: unknown; line?: unknown; column?: unknown; message?: unknown };
  switch (m.type) {
    case 'ready': return true;
    case 'openSource': return typeof m.file === 'string' && m.file !== '' && Number.isInteger(m.line) && Number.isInteger(m.column);
    case 'error': return typeof m.message === 'string';
    case 'showData': return typeof (value as { id?: unknown }).id === 'string';
    default: return false;
  }
}

export interface InitOptions {
  /** Split payloads larger than this many bytes into chunks of it (default DEFAULT_CHUNK_BYTES, 1 MiB). */
  chunkBytes?: number;
}

/**
 * The messages a host posts to (re)load the webview with a payload, in order. Hosts call this instead
 * of building `init` themselves, so the protocol can split large payloads without host changes: a
 * payload up to `chunkBytes` is one `init`; a larger one is `initBegin` plus `initChunk`s.
 */
export function initMessages(payload: FlamePayload, canOpenSource: boolean, state?: Partial<ViewState>, options: InitOptions & { choices?: DataChoice[] } = {}): HostMessage[] {
  const split = splitPayload(payload, options.chunkBytes);
  const choices = options.choices?.length ? { choices: options.choices } : {};
  if (!split) return [{ type: 'init', payload, canOpenSource, state, ...choices }];
  return [
    { type: 'initBegin', canOpenSource, state, ...choices, ...split.begin },
    ...split.chunks.map((c): HostMessage => ({ type: 'initChunk', ...c })),
  ];
}
