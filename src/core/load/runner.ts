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
    const warmup = await runPhase({ ...common, phase: 'warmup', seconds: options.warmupSeconds });
    // Only a target that never answered fails here; a slow starter gets the measured phase to prove itself.
    if (warmup.responses === 0 && warmup.raw.errors > warmup.raw.timeouts) {
      failIfNoResponse(warmup, url, options, options.warmupSeconds);
    }
  }

  const measured = await runPhase({ ...common, phase: 'measure', seconds: options.durationSeconds, ...(hooks.requests !== undefined ? { requests: Math.max(hooks.requests, options.connections) } : {}) });
  failIfNoResponse(measured, url, options, options.durationSeconds);

  const result = normalizeResult(measured.raw, {
    method: options.method,
    perSecond: measured.perSecond,
    latencyMs: measured.latencyMs,
    loadGeneratorCpuPct: measured.cpuPct,
    routes: measured.routes,
  });
  result.warnings.push(...loadWarnings(result));
  for (const w of result.warnings) logger.warn(w.message);
  return result;
}
