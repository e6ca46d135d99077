/** Exit codes of `hotpath`, documented in the README so CI scripts can rely on them. */
export const EXIT_OK = 0;
/** A run failed (the app crashed before listening, a bad profile, …); the message says why. */
export const EXIT_FAILED = 1;
/** The command line itself was wrong. */
export const EXIT_USAGE = 2;
/** A comparison (verify, compare, startup, bench --baseline) found a regression beyond the policy (--fail-on slower, --max-regression). */
export const EXIT_REGRESSION = 3;
/** Interrupted by Ctrl-C / SIGTERM; the app was stopped. */
export const EXIT_CANCELLED = 130;
/** A comparison could not decide whether the regression is beyond the policy, and `--fail-on inconclusive` asked to fail then. */
export const EXIT_INCONCLUSIVE = 4;
