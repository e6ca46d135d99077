import { ErrorCode, HotpathError } from '../common/errors';
import { formatInt } from '../../shared/text/numbers';

/** What a phase saw when no response came back: the raw material for a message that says what to check. */
export interface NoResponseFacts {
  url: string;
  /** Failed connections as autocannon counts them (timeouts included). */
  errors: number;
  timeouts: number;
  /** reqError counts by error code ('ECONNREFUSED', 'ECONNRESET', …; 'timeout' for timeouts). */
  errorCodes: ReadonlyMap<string, number>;
  seconds: number;
  timeoutSeconds: number;
}

const n = formatInt;

/** "ECONNREFUSED", or "ECONNRESET, EPIPE" most frequent first; timeouts are reported separately. */
function codeList(errorCodes: ReadonlyMap<string, number>): string {
  return [...errorCodes.entries()]
    .filter(([code]) => code !== 'timeout')
    .sort((a, b) => b[1] - a[1])
    .map(([code]) => code)
    .join(', ');
}

/**
 * The LoadFailed error for a phase in which not a single response arrived. Each case names the likely
 * cause, because "0 req/s" on its own sends people hunting in the wrong place.
 */
export function noResponseError(facts: NoResponseFacts): HotpathError {
  const { url, errors, timeouts } = facts;
  const connectionErrors = errors - timeouts;
  const details = { url, errors, timeouts, errorCodes: Object.fromEntries(facts.errorCodes) };
  if (connectionErrors > 0) {
    const codes = codeList(facts.errorCodes);
    const refused = facts.errorCodes.has('ECONNREFUSED');
    const hint = refused
      ? 'Is the app listening on that port and path?'
      : 'The app accepted connections but closed them: is it crashing on this request, or expecting https?';
    return new HotpathError(
      ErrorCode.LoadFailed,
      `No request succeeded: ${n(connectionErrors)} connection errors${codes ? ` (${codes})` : ''} against ${url}. ${hint}`,
      details,
    );
  }
  if (timeouts > 0) {
    return new HotpathError(
      ErrorCode.LoadFailed,
      `No request succeeded: ${n(timeouts)} requests timed out after ${facts.timeoutSeconds} s against ${url}. ` +
        'The app accepted connections but never answered: is it stuck, or does this route need a longer --timeout?',
      details,
    );
  }
  // autocannon reconnects silently when the app closes a connection without answering, so a server that
  // drops every request looks exactly like one that is too slow: say both.
  return new HotpathError(
    ErrorCode.LoadFailed,
    `No response arrived during the ${facts.seconds} s run against ${url}: the app accepted connections but answered none. ` +
      'It may be closing connections without a response (check its output for errors), be stuck, or be slower than ' +
      'the run: try a longer --duration or --timeout.',
    details,
  );
}
