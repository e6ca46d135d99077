/**
 * Every failure a user can act on is a HotpathError with a stable code (for the CLI's JSON, exit codes
 * and tests) and a message that says what happened and what to do. Anything else is a bug.
 */
export enum ErrorCode {
  TargetExited = 'TARGET_EXITED',
  TargetNeverListened = 'TARGET_NEVER_LISTENED',
  TargetSpawnFailed = 'TARGET_SPAWN_FAILED',
  PortInUse = 'PORT_IN_USE',
  InspectorUnavailable = 'INSPECTOR_UNAVAILABLE',
  AttachFailed = 'ATTACH_FAILED',
  ProfileInvalid = 'PROFILE_INVALID',
  ProfileNotFound = 'PROFILE_NOT_FOUND',
  LoadFailed = 'LOAD_FAILED',
  /** The first load run got only 404/405: the request path or method names no route of the app. */
  RouteNotFound = 'ROUTE_NOT_FOUND',
  InvalidOption = 'INVALID_OPTION',
  BaselineNotFound = 'BASELINE_NOT_FOUND',
  Cancelled = 'CANCELLED',
  Timeout = 'TIMEOUT',
  /** git itself failed (not installed, a worktree it could not add, …): a failure, not a usage error. */
  GitFailed = 'GIT_FAILED',
  /** A file the user asked for (`--md FILE`) could not be written. */
  OutputNotWritten = 'OUTPUT_NOT_WRITTEN',
}

export class HotpathError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra context for logs and JSON output, e.g. the target's last output lines. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HotpathError';
  }
}

const CODES = new Set<string>(Object.values(ErrorCode));

/**
 * Structural, not `instanceof`: the VS Code extension loads the workflow engine as a second bundle
 * with its own copy of this class, and its errors must still be recognised.
 */
export function isHotpathError(err: unknown, code?: ErrorCode): err is HotpathError {
  if (!(err instanceof Error) || err.name !== 'HotpathError') return false;
  const c = (err as { code?: unknown }).code;
  return typeof c === 'string' && CODES.has(c) && (code === undefined || c === code);
}

export function cancelledError(what = 'The run'): HotpathError {
  return new HotpathError(ErrorCode.Cancelled, `${what} was cancelled.`);
}

export function invalidOption(message: string): HotpathError {
  return new HotpathError(ErrorCode.InvalidOption, message);
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
