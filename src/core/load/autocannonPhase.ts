import autocannon from 'autocannon';
import { performance } from 'node:perf_hooks';
import { cancelledError, ErrorCode, HotpathError, errorMessage } from '../common/errors';
import type { CancellationToken } from '../common/cancellation';
import type { Logger } from '../common/logger';
import type { LoadOptions } from './options';
import { LatencyRecorder, type LatencySummary } from './latencyRecorder';
import { PerSecondCounter } from './perSecondCounter';
import type { RawAutocannonResult } from './result';
import { sequenceFor, weightedSequence, type RouteResult } from './routes';

export type LoadPhase = 'warmup' | 'measure';

export interface LoadProgress {
  phase: LoadPhase;
  elapsedSeconds: number;
  totalSeconds: number;
  /** Responses completed in the last second. */
  requestsPerSecond: number;
  /** Failed connections so far in this phase (as autocannon counts them). */
  errors: number;
  /** Responses so far in this phase (for runs of a number of requests rather than seconds). */
  responses: number;
}

export interface PhaseOutcome {
  raw: RawAutocannonResult;
  perSecond: number[];
  responses: number;
  latencyMs: LatencySummary;
  /** This process's CPU over the phase, as % of one core. */
  cpuPct: number;
  errorCodes: Map<string, number>;
  /** Per route (one entry without --request): responses, latency, non-2xx. */
  routes: RouteResult[];
}

export interface PhaseRequest {
  phase: LoadPhase;
  url: string;
  options: LoadOptions;
  seconds: number;
  /** Send exactly this many requests instead of loading for `seconds` (the leak check's rungs). */
  requests?: number;
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
/** The routes of a run: the --request mix, or the one route of --path/--method. */
function routesOf(options: LoadOptions) {
  return options.routes?.length ? options.routes : [{ method: options.method, path: options.path, weight: 1 }];
}

/**
 * autocannon request objects for one connection: its rotation of the weighted sequence, each entry
 * telling `onRoute` which route a response belongs to (autocannon calls a request's onResponse right
 * before it emits 'response' for it, synchronously).
 */
function requestsFor(options: LoadOptions, sequence: readonly number[], connection: number, onRoute: (route: number, status: number) => void) {
  const routes = options.routes ?? [];
  const objects = routes.map((r, i) => ({
    method: r.method, path: r.path, headers: { ...options.headers, ...r.headers }, ...(r.body !== undefined ? { body: r.body } : {}),
    onResponse: (status: number) => onRoute(i, status),
  }));
  return sequenceFor(sequence, connection, options.connections).map((i) => objects[i]);
}

export function runPhase(request: PhaseRequest): Promise<PhaseOutcome> {
  const { phase, url, options, seconds, token, logger, onProgress } = request;
  if (token.isCancellationRequested) return Promise.reject(cancelledError('The load run'));
  const routes = routesOf(options);
  const perRoute = routes.map(() => ({ latency: new LatencyRecorder(), requests: 0, non2xx: 0 }));
  let lastRoute = 0;
  const mixed = Boolean(options.routes?.length);
  const sequence = mixed ? weightedSequence(routes.map((r) => r.weight)) : [];
  const onRoute = (route: number) => { lastRoute = route; };

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

    const what = mixed ? routes.map((r) => `${r.method} ${r.path}${r.weight > 1 ? ` ×${r.weight}` : ''}`).join(', ') : `${options.method} ${url}`;
    logger.info(`Load ${phase}: ${request.requests !== undefined ? `${request.requests} requests` : `${seconds} s`}, ${options.connections} connections, ${what}`);

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
        ...(request.requests !== undefined ? { amount: request.requests } : { duration: seconds - 0.5 }),
        ...(mixed ? { requests: requestsFor(options, sequence, 0, onRoute) } : {}),
        // Collects every client so stopping can close their sockets now rather than at the next sample;
        // with several routes each connection starts at its own place in the sequence (autocannon can
        // change a connection's requests only without pipelining).
        setupClient: (client) => {
          const index = clients.length;
          clients.push(client as unknown as { destroy(): void });
          if (mixed && index > 0 && options.pipelining === 1) (client as unknown as { setRequests(r: unknown[]): void }).setRequests(requestsFor(options, sequence, index, onRoute));
        },
      } as autocannon.Options,
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
          routes: routes.map((r, i) => {
            const l = perRoute[i].latency.summary();
            return { method: r.method, path: r.path, requests: perRoute[i].requests, latencyMs: { p50: l.p50, p90: l.p90, p99: l.p99, max: l.max }, non2xx: perRoute[i].non2xx };
          }),
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

    instance.on('response', (_client, status: number, _bytes, responseTimeMs: number) => {
      counter.record();
      latency.recordMs(responseTimeMs);
      const route = perRoute[mixed ? lastRoute : 0];
      route.requests++;
      route.latency.recordMs(responseTimeMs);
      if (status < 200 || status >= 300) route.non2xx++;
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
        responses: counter.responses,
      });
    });
  });
}
