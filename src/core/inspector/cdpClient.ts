import CDP from 'chrome-remote-interface';
import { type CancellationToken, delay, neverCancelled } from '../common/cancellation';
import { type Disposable } from '../common/disposable';
import { errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { EventEmitter } from '../common/events';
import { type Logger, silentLogger } from '../common/logger';
import { assertLoopbackInspectorUrl } from './loopback';

export interface CdpEvent { method: string; params: any; sessionId?: string }

/** What we need from a CDP connection; a worker's session (over NodeWorker) implements it too. */
export interface CdpSession {
  /** Must succeed: a failure is a HotpathError that says which call failed. */
  send<T = any>(method: string, params?: object): Promise<T>;
  /** Best effort: failures are logged and yield undefined (e.g. optional domains on older Node). */
  trySend<T = any>(method: string, params?: object): Promise<T | undefined>;
  onEvent(method: string, listener: (params: any) => void): Disposable;
}

export interface ConnectOptions {
  token?: CancellationToken;
  /** Attempts before giving up; the inspector may need a moment after printing its URL. */
  attempts?: number;
  logger?: Logger;
}

/** A small typed wrapper over chrome-remote-interface (cf. vscode-js-debug's cdp/connection.ts). */
export class CdpClient implements CdpSession, Disposable {
  private readonly disconnectEmitter = new EventEmitter<void>();
  readonly onDisconnect = this.disconnectEmitter.event;
  private closed = false;
  private readonly listeners = new Map<string, Set<(params: any) => void>>();

  private constructor(private readonly cdp: CDP.Client, readonly url: string, private readonly logger: Logger) {
    cdp.on('event', (message: CdpEvent) => {
      if (message.sessionId) return;
      for (const l of [...(this.listeners.get(message.method) ?? [])]) l(message.params);
    });
    cdp.on('disconnect', () => { this.closed = true; this.disconnectEmitter.fire(); });
  }

  static async connect(url: string, options: ConnectOptions = {}): Promise<CdpClient> {
    assertLoopbackInspectorUrl(url);
    const token = options.token ?? neverCancelled;
    const attempts = options.attempts ?? 5;
    const logger = options.logger ?? silentLogger;
    let lastError: unknown;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        // local: use the protocol bundled with the library instead of asking the target for it.
        const cdp = await CDP({ target: url, local: true });
        return new CdpClient(cdp, url, logger);
      } catch (err) {
        lastError = err;
        logger.trace(`Inspector connection attempt ${attempt} to ${url} failed: ${errorMessage(err)}`);
        if (attempt < attempts) await delay(100 * attempt, token);
      }
    }
    throw new HotpathError(ErrorCode.InspectorUnavailable,
      `Could not connect to the app's inspector at ${url}: ${errorMessage(lastError)}. The app may have closed its inspector or exited; check that nothing in it calls inspector.close() and that it is still running.`);
  }

  get isClosed(): boolean { return this.closed; }

  async send<T = any>(method: string, params: object = {}): Promise<T> {
    try {
      return await this.cdp.send(method as any, params as any) as T;
    } catch (err) {
      throw new HotpathError(ErrorCode.InspectorUnavailable, `The inspector call ${method} failed: ${errorMessage(err)}.`);
    }
  }

  async trySend<T = any>(method: string, params: object = {}): Promise<T | undefined> {
    try { return await this.cdp.send(method as any, params as any) as T; } catch (err) {
      this.logger.trace(`Best-effort inspector call ${method} failed: ${errorMessage(err)}`);
      return undefined;
    }
  }

  onEvent(method: string, listener: (params: any) => void): Disposable {
    let set = this.listeners.get(method);
    if (!set) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return { dispose: () => { set!.delete(listener); } };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try { await this.cdp.close(); } catch { /* already gone */ }
  }

  dispose(): void { void this.close(); }
}
