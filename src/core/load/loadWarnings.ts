import type { Warning } from '../common/warnings';
import type { LoadResult } from './result';
import { formatInt } from '../../shared/text/numbers';

/**
 * autocannon runs inside our own process and shares the machine with the app. Past this share of one
 * core the generator itself is the likely bottleneck: requests wait on autocannon's event loop rather than
 * on the app, so "the app got faster" could really mean "the load generator got less starved".
 */
export const SATURATED_CPU_PCT = 85;

/** Errors, timeouts and non-2xx responses above this share of all attempts are worth a warning. */
export const ERROR_SHARE_WARN = 0.01;

export function saturationWarning(cpuPct: number): Warning | undefined {
  if (!(cpuPct > SATURATED_CPU_PCT)) return undefined;
  return {
    code: 'LOAD_GENERATOR_SATURATED',
    message:
      `autocannon used ${Math.round(cpuPct)}% of a core: the load generator, not the app, may be the limit. ` +
      'Use fewer connections, add --pipelining, or run the load from another machine.',
  };
}

const plural = (count: number, noun: string): string => `${formatInt(count)} ${noun}${count === 1 ? '' : 's'}`;

const pct = (part: number, whole: number): string => {
  const p = (100 * part) / whole;
  return p >= 10 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
};

/** The most frequent non-2xx status, e.g. "404×1,203", to point at the usual culprit (a wrong path). */
function topNon2xx(statusCodes: Record<string, number>): string | undefined {
  const entries = Object.entries(statusCodes).filter(([code]) => !code.startsWith('2'));
  if (entries.length === 0) return undefined;
  entries.sort((a, b) => b[1] - a[1]);
  return entries.slice(0, 3).map(([code, n]) => `${code}×${formatInt(n)}`).join(', ');
}

export function errorWarning(counts: {
  responses: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}): Warning | undefined {
  const attempts = counts.responses + counts.errors;
  const bad = counts.errors + counts.non2xx;
  if (attempts === 0 || bad / attempts <= ERROR_SHARE_WARN) return undefined;
  const parts: string[] = [];
  if (counts.errors > 0) {
    const timeouts = counts.timeouts > 0 ? ` (${plural(counts.timeouts, 'timeout')})` : '';
    parts.push(`${plural(counts.errors, 'error')}${timeouts}`);
  }
  if (counts.non2xx > 0) {
    const top = topNon2xx(counts.statusCodes);
    parts.push(`${plural(counts.non2xx, 'non-2xx response')}${top ? ` (${top})` : ''}`);
  }
  return {
    code: 'LOAD_ERRORS',
    message:
      `${pct(bad, attempts)} of requests failed: ${parts.join(', ')}. Error responses are usually much cheaper ` +
      'or much slower than real work, so these numbers may not describe the app. Check the URL, method, headers and body.',
  };
}

/** The caveats a measured run carries: a starved load generator, a significant share of failures. */
export function loadWarnings(result: LoadResult): Warning[] {
  const warnings: Warning[] = [];
  const saturated = saturationWarning(result.loadGeneratorCpuPct);
  if (saturated) warnings.push(saturated);
  const failed = errorWarning({
    responses: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes: result.statusCodes,
  });
  if (failed) warnings.push(failed);
  return warnings;
}
