import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { cancelledError, ErrorCode, HotpathError, errorMessage } from '../common/errors';
import type { CancellationToken } from '../common/cancellation';
import type { Logger } from '../common/logger';
import type { LoadOptions } from './options';
import { LatencyRecorder, type LatencySummary } from './latencyRecorder';
import { PerSecondCounter } from './perSecondCounter';
import type { RawAutocannonResult } from './result';

export type LoadPhase = 'warmup' | 'measure';

export interface LoadProgress {
  phase: LoadPhase;
  elapsedSeconds: number;
  totalSeconds: number;
  /** Responses completed in the last second. */
  requestsPerSecond: number;
  /** Failed connections so far in this phase (as autocannon counts them). */
  errors: number;
}

export interface PhaseOutcome {
  raw: RawAutocannonResult;
  perSecond: number[];
  responses: number;
  latencyMs: LatencySummary;
  /** This process's CPU over the phase, as % of one core. */
  cpuPct: number;
  errorCodes: Map<string, number>;
}

export interface PhaseRequest {
  phase: LoadPhase;
  url: string;
  options: LoadOptions;
  seconds: number;
  token: CancellationToken;
  logger: Logger;
  onProgress?: (progress: LoadProgress) => void;
}

function errorCode(err: unknown): string {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  // autocannon reports timeouts as a bare Error('request timed out').
  return /timed out/i.test(errorMessage(err)) ? 'timeout' : 'other';
}

/**
 * One autocannon run in this process, resolved only after autocannon has destroyed its sockets and
 * cleared its timers, so neither a result nor a cancellation ever leaves work running behind it.
 *
 * autocannon's stop() (and its duration timer) only raise a flag that its 1 s sample interval acts on;
 * on cancellation we also destroy its clients so the sockets close at once, and the promise settles at
 * that next sample (within a second), when autocannon has cleared its own timers.
 */
export function runPhase(request: PhaseRequest): Promise<PhaseOutcome> {
  const { phase, url, options, seconds, token, logger, onProgress } = request;
  if (token.isCancellationRequested) return Promise.reject(cancelledError('The load run'));

  return new Promise<PhaseOutcome>((resolve, reject) => {
    const startMs = performance.now();
    const cpuStart = process.cpuUsage();
    const counter = new PerSecondCounter(startMs);
    const latency = new LatencyRecorder();
    const errorCodes = new Map<string, number>();
    let reqErrors = 0;
    let cancelled = false;
    let unreachable = false;
    let settled = false;
    let cancelSub: { dispose(): void } | undefined;
    const clients: Array<{ destroy(): void }> = [];

    logger.info(`Load ${phase}: ${seconds} s, ${options.connections} connections, ${options.method} ${url}`);

    const instance = autocannon(
      {
        url,
        method: options.method as autocannon.Request['method'],
        headers: options.headers,
        body: options.body,
        connections: options.connections,
        pipelining: options.pipelining,
        timeout: options.timeoutSeconds,
        // autocannon stops at the first 1 s sample after its duration timer fires; with a whole-second
        // duration the two race and the run is N or N+1 samples long. Half a second early makes it N.
        duration: seconds - 0.5,
        // Collects every client so stopping can close their sockets now rather than at the next sample.
        setupClient: (client) => { clients.push(client as unknown as { destroy(): void }); },
      },
      (err: unknown, result: autocannon.Result) => {
        settled = true;
        cancelSub?.dispose();
        if (cancelled) return reject(cancelledError('The load run'));
        if (err) {
          return reject(new HotpathError(ErrorCode.LoadFailed, `autocannon could not start the load against ${url}: ${errorMessage(err)}`));
        }
        const endMs = performance.now();
        const cpu = process.cpuUsage(cpuStart);
        const cpuPct = (100 * (cpu.user + cpu.system)) / 1000 / Math.max(1, endMs - startMs);
        const raw: RawAutocannonResult = {
          ...result,
          statusCodeStats: result.statusCodeStats as Record<string, { count?: number }> | undefined,
        };
        logger.info(
          `Load ${phase} done: ${result.requests.total} responses, ${result.errors} errors${unreachable ? ' (stopped early: target unreachable)' : ''}`,
        );
        resolve({
          raw,
          perSecond: counter.finish(endMs),
          responses: counter.responses,
          latencyMs: latency.summary(),
          cpuPct,
          errorCodes,
        });
      },
    );

    // autocannon reports invalid options through the callback synchronously; nothing is running then.
    if (settled) return;

    /** stop() only raises a flag; destroying the clients closes the sockets and their timeout timers now. */
    const stopNow = (): void => {
      instance.stop();
      for (const client of clients) client.destroy();
    };
    cancelSub = token.onCancellationRequested(() => {
      cancelled = true;
      stopNow();
    });

    instance.on('response', (_client, _status, _bytes, responseTimeMs: number) => {
      counter.record();
      latency.recordMs(responseTimeMs);
    });
    instance.on('reqError', (err: unknown) => {
      reqErrors++;
      const code = errorCode(err);
      errorCodes.set(code, (errorCodes.get(code) ?? 0) + 1);
    });
    instance.on('tick', () => {
      const now = performance.now();
      const lastSecond = counter.tick(now);
      // A whole second with connection errors and not one response: the app is not there. Waiting out
      // the warm-up and the full duration would only delay the same verdict by up to a minute.
      const connectionErrors = reqErrors - (errorCodes.get('timeout') ?? 0);
      if (!unreachable && counter.responses === 0 && connectionErrors > 0 && now - startMs >= 900) {
        unreachable = true;
        stopNow();
      }
      if (lastSecond === undefined || !onProgress) return;
      onProgress({
        phase,
        elapsedSeconds: Math.min(seconds, Math.round((now - startMs) / 1000)),
        totalSeconds: seconds,
        requestsPerSecond: lastSecond,
        // autocannon emits one reqError per pipelined request of a failed connection, counts one error.
        errors: Math.round(reqErrors / options.pipelining),
      });
    });
  });
}
