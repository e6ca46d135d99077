import type { Disposable } from '../common/disposable';
import { errorMessage, ErrorCode, HotpathError } from '../common/errors';
import type { CdpSession } from './cdpClient';

export interface WorkerInfo { workerId: string; type: string; title: string; url: string }

/**
 * A CDP session on a worker thread, tunnelled through the main thread's `NodeWorker` domain:
 * requests go out as NodeWorker.sendMessageToWorker, replies and events come back as
 * NodeWorker.receivedMessageFromWorker carrying the worker's own CDP message as a string.
 */
export class WorkerSession implements CdpSession, Disposable {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(v: any): void; reject(e: Error): void; method: string }>();
  private readonly listeners = new Map<string, Set<(params: any) => void>>();
  private detached = false;

  constructor(private readonly parent: CdpSession, readonly sessionId: string, readonly info: WorkerInfo) {}

  /** Called by the owner for each receivedMessageFromWorker of this session. */
  handleMessage(raw: string): void {
    let message: any;
    try { message = JSON.parse(raw); } catch { return; }
    if (typeof message.id === 'number') {
      const call = this.pending.get(message.id);
      if (!call) return;
      this.pending.delete(message.id);
      if (message.error) call.reject(new Error(message.error.message ?? 'error'));
      else call.resolve(message.result);
    } else if (typeof message.method === 'string') {
      for (const l of [...(this.listeners.get(message.method) ?? [])]) l(message.params);
    }
  }

  /** The worker exited (or the session was closed): nothing more can be asked of it. */
  get isDetached(): boolean { return this.detached; }

  /** The worker went away: fail what is still waiting for an answer. */
  handleDetached(): void {
    this.detached = true;
    for (const call of this.pending.values()) call.reject(new Error('the worker exited'));
    this.pending.clear();
  }

  async send<T = any>(method: string, params: object = {}): Promise<T> {
    if (this.detached) throw new HotpathError(ErrorCode.InspectorUnavailable, `The inspector call ${method} on worker ${this.info.workerId} failed: the worker exited.`);
    const id = this.nextId++;
    const result = new Promise<T>((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
    await this.parent.send('NodeWorker.sendMessageToWorker', { sessionId: this.sessionId, message: JSON.stringify({ id, method, params }) });
    try {
      return await result;
    } catch (err) {
      throw new HotpathError(ErrorCode.InspectorUnavailable, `The inspector call ${method} on worker ${this.info.workerId} failed: ${errorMessage(err)}.`);
    }
  }

  async trySend<T = any>(method: string, params: object = {}): Promise<T | undefined> {
    try { return await this.send<T>(method, params); } catch { return undefined; }
  }

  onEvent(method: string, listener: (params: any) => void): Disposable {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return { dispose: () => { set!.delete(listener); } };
  }

  dispose(): void {
    this.handleDetached();
    this.listeners.clear();
  }
}
