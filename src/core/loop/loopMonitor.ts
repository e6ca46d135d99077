/**
 * The event-loop and GC monitor in the target, over its inspector: installed and started right
 * before the measured load, stopped and read right after it, removed when done. Best effort: a target
 * where it cannot run (no `process.getBuiltinModule`, an inspector that refuses evaluation) still gets
 * its CPU profile, and the result says what is missing and why.
 */
import type { CdpSession } from '../inspector/cdpClient';
import type { Logger } from '../common/logger';
import { INSTALL_MONITOR_EXPRESSION, REMOVE_MONITOR_EXPRESSION, startMonitorExpression, STOP_MONITOR_EXPRESSION, type MonitorReport, type MonitorStartOptions } from './monitorScript';

export const DEFAULT_MONITOR_OPTIONS: MonitorStartOptions = { thresholdMs: 20, maxEpisodes: 5000, tickMs: 20, gcPauses: false, gcReadMs: 1000 };

async function evaluate(session: CdpSession, expression: string): Promise<{ value?: unknown; error?: string }> {
  const r = await session.trySend<{ result?: { value?: unknown }; exceptionDetails?: { text?: string; exception?: { description?: string } } }>('Runtime.evaluate', { expression, returnByValue: true, silent: true });
  if (!r) return { error: 'the inspector did not answer' };
  if (r.exceptionDetails) return { error: r.exceptionDetails.exception?.description?.split('\n')[0] ?? r.exceptionDetails.text ?? 'an exception' };
  return { value: r.result?.value };
}

export class LoopMonitor {
  private constructor(private readonly session: CdpSession, readonly options: MonitorStartOptions, private readonly logger?: Logger) {}

  /** Installs and starts the monitor; `{ limitation }` when it cannot run in this target. */
  static async start(session: CdpSession, options: Partial<MonitorStartOptions> = {}, logger?: Logger): Promise<LoopMonitor | { limitation: string }> {
    const resolved = { ...DEFAULT_MONITOR_OPTIONS, ...options };
    const installed = await evaluate(session, INSTALL_MONITOR_EXPRESSION);
    if (installed.error) return { limitation: `the event-loop monitor could not be installed in the app (${installed.error}); it needs Node ≥ 20.16` };
    const started = await evaluate(session, startMonitorExpression(resolved));
    if (started.error) return { limitation: `the event-loop monitor could not start (${started.error})` };
    logger?.info(`Event-loop monitor on (turns ≥ ${resolved.thresholdMs} ms are episodes)`);
    return new LoopMonitor(session, resolved, logger);
  }

  /** Stops it and returns what it saw, or undefined when the target is gone. */
  async stop(): Promise<MonitorReport | undefined> {
    const r = await evaluate(this.session, STOP_MONITOR_EXPRESSION);
    if (r.error || typeof r.value !== 'string') {
      this.logger?.warn(`Event-loop monitor: no report (${r.error ?? 'nothing returned'})`);
      return undefined;
    }
    try { return JSON.parse(r.value) as MonitorReport; } catch { return undefined; }
  }

  /** Takes the monitor out of the app's global object (best effort: the app may be gone). */
  async dispose(): Promise<void> {
    await evaluate(this.session, REMOVE_MONITOR_EXPRESSION);
  }
}
