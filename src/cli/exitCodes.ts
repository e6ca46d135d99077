/** Exit codes of `hotpath`, documented in the README so CI scripts can rely on them. */
export const EXIT_OK = 0;
/** A run failed (the app crashed before listening, a bad profile, …); the message says why. */
export const EXIT_FAILED = 1;
/** The command line itself was wrong. */
export const EXIT_USAGE = 2;
/** `verify` found a statistically significant regression against the baseline. */
export const EXIT_REGRESSION = 3;
/** Interrupted by Ctrl-C / SIGTERM; the app was stopped. */
export const EXIT_CANCELLED = 130;
