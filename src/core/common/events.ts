import type { Disposable } from './disposable';

/** A typed event: subscribe with a listener, get a Disposable back (vscode.Event's shape). */
export type Event<T> = (listener: (value: T) => void) => Disposable;

export class EventEmitter<T> implements Disposable {
  private listeners = new Set<(value: T) => void>();

  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => { this.listeners.delete(listener); } };
  };

  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }

  dispose(): void {
    this.listeners.clear();
  }
}
