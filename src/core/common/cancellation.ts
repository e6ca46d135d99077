import { cancelledError } from './errors';
import type { Disposable } from './disposable';
import { EventEmitter, type Event } from './events';

/** Shaped like vscode.CancellationToken so the adapter can pass VS Code's token straight through. */
export interface CancellationToken {
  readonly isCancellationRequested: boolean;
  readonly onCancellationRequested: Event<void>;
}

export class CancellationTokenSource implements Disposable {
  private cancelled = false;
  private readonly emitter = new EventEmitter<void>();
  readonly token: CancellationToken;

  constructor() {
    const state = this;
    this.token = {
      get isCancellationRequested() { return state.cancelled; },
      onCancellationRequested: (listener) => {
        if (state.cancelled) { queueMicrotask(() => listener()); return { dispose() {} }; }
        return state.emitter.event(listener);
      },
    };
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.emitter.fire();
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

export const neverCancelled: CancellationToken = {
  isCancellationRequested: false,
  onCancellationRequested: () => ({ dispose() {} }),
};

export function throwIfCancelled(token: CancellationToken, what?: string): void {
  if (token.isCancellationRequested) throw cancelledError(what);
}

/** Resolves after `ms`, or rejects with a Cancelled error as soon as the token fires. */
export function delay(ms: number, token: CancellationToken = neverCancelled): Promise<void> {
  return new Promise((resolve, reject) => {
    if (token.isCancellationRequested) return reject(cancelledError());
    const sub = token.onCancellationRequested(() => { clearTimeout(timer); reject(cancelledError()); });
    const timer = setTimeout(() => { sub.dispose(); resolve(); }, ms);
  });
}

/** Races a promise against cancellation; the loser's work is the caller's to clean up. */
export function raceCancellation<T>(promise: Promise<T>, token: CancellationToken, what?: string): Promise<T> {
  if (token.isCancellationRequested) return Promise.reject(cancelledError(what));
  return new Promise<T>((resolve, reject) => {
    const sub = token.onCancellationRequested(() => reject(cancelledError(what)));
    promise.then((v) => { sub.dispose(); resolve(v); }, (e) => { sub.dispose(); reject(e); });
  });
}
