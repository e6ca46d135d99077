import { neverCancelled, throwIfCancelled, type CancellationToken } from '../common/cancellation';
import { silentLogger, type Logger } from '../common/logger';
import { runPhase, type LoadProgress, type PhaseOutcome } from './autocannonPhase';
import { noResponseError } from './loadFailure';
import { loadWarnings } from './loadWarnings';
import { targetUrl, type LoadOptions } from './options';
import { normalizeResult, type LoadResult } from './result';

export type { LoadProgress, LoadPhase } from './autocannonPhase';

export interface RunLoadHooks {
  token?: CancellationToken;
  /** About once a second per phase. */
  onProgress?: (progress: LoadProgress) => void;
  logger?: Logger;
  /** Measure exactly this many requests instead of `durationSeconds` (the leak check's rungs). */
  requests?: number;
  /**
   * This run is a warm-up (its numbers are thrown away): an app that accepts connections but has not
   * answered yet gets more of it — see `warmUntilAnswered`.
   */
  warmup?: boolean;
}

function failIfNoResponse(outcome: PhaseOutcome, url: string, options: LoadOptions, seconds: number): void {
  if (outcome.responses > 0) return;
  throw noResponseError({
    url,
    errors: outcome.raw.errors,
    timeouts: outcome.raw.timeouts,
    errorCodes: outcome.errorCodes,
    seconds,
    timeoutSeconds: options.timeoutSeconds,
  });
}

/**
 * A warm-up phase, repeated while the app accepts connections but has answered nothing yet, until the
 * request timeout: a first request that compiles templates, fills caches or opens pools (0.4 s for
 * Express + Pug on this machine, several seconds on a loaded one) then neither fails the run ("no
 * response") nor lands in the measured window. Connection errors (refused, reset) are not waited
 * out: they end the warm-up at once, for the caller to report.
 */
async function warmUntilAnswered(request: Parameters<typeof runPhase>[0], url: string, options: LoadOptions, logger: Logger): Promise<{ outcome: PhaseOutcome; seconds: number }> {
  let outcome = await runPhase(request);
  let waited = request.seconds;
  while (outcome.responses === 0 && outcome.raw.errors === 0 && waited < options.timeoutSeconds) {
    const more = Math.min(request.seconds, options.timeoutSeconds - waited);
    logger.info(`No response from ${url} after ${waited} s of warm-up, and no connection error: the app is still starting to answer. Warming up for another ${more} s (at most the ${options.timeoutSeconds} s request timeout in all).`);
    outcome = await runPhase({ ...request, seconds: more });
    waited += more;
  }
  return { outcome, seconds: waited };
}

/**
 * Applies `options.warmupSeconds` of load whose numbers are thrown away (JIT warm-up, connection pools,
 * caches), then measures `options.durationSeconds`. Rejects with HotpathError(Cancelled) when `token`
 * fires and with HotpathError(LoadFailed) when no request got a response; in both cases only after
 * autocannon has closed its sockets and timers.
 */
export async function runLoad(options: LoadOptions, hooks: RunLoadHooks = {}): Promise<LoadResult> {
  const { token = neverCancelled, onProgress, logger = silentLogger } = hooks;
  throwIfCancelled(token, 'The load run');
  const url = targetUrl(options);
  const common = { url, options, token, logger, onProgress };

  if (options.warmupSeconds > 0) {
    const warmup = await warmUntilAnswered({ ...common, phase: 'warmup', seconds: options.warmupSeconds }, url, options, logger);
    // A target that refused or dropped every connection fails here; one that answered late gets measured.
    if (warmup.outcome.responses === 0 && warmup.outcome.raw.errors > warmup.outcome.raw.timeouts) failIfNoResponse(warmup.outcome, url, options, warmup.seconds);
  }

  const measureRequest = { ...common, phase: hooks.warmup ? 'warmup' as const : 'measure' as const, seconds: options.durationSeconds, ...(hooks.requests !== undefined ? { requests: Math.max(hooks.requests, options.connections) } : {}) };
  const measured = hooks.warmup ? await warmUntilAnswered(measureRequest, url, options, logger) : { outcome: await runPhase(measureRequest), seconds: options.durationSeconds };
  failIfNoResponse(measured.outcome, url, options, measured.seconds);

  const { outcome } = measured;
  const result = normalizeResult(outcome.raw, {
    method: options.method,
    perSecond: outcome.perSecond,
    latencyMs: outcome.latencyMs,
    loadGeneratorCpuPct: outcome.cpuPct,
    routes: outcome.routes,
  });
  result.warnings.push(...loadWarnings(result));
  for (const w of result.warnings) logger.warn(w.message);
  return result;
}
