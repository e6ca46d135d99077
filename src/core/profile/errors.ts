/**
 * The user-facing errors of profile loading. Each message names the file, says what is wrong in terms a
 * user can check, and what to do about it.
 */
import { ErrorCode, HotpathError } from '../common/errors';

const RERECORD = 'Re-record the profile.';
const NOT_A_PROFILE_HINT =
  'Open a .cpuprofile written by `node --cpu-prof`, the DevTools Profiler (Profiler.stop), Chrome DevTools or VS Code\'s JavaScript debugger.';

/** JSON that parses but is not a usable CPU profile. */
export function notAProfile(source: string, what: string, hint = NOT_A_PROFILE_HINT): HotpathError {
  return new HotpathError(ErrorCode.ProfileInvalid, `${source} is not a valid CPU profile: ${what}. ${hint}`, {
    file: source,
  });
}

/** The bytes stop in the middle of the JSON document. */
export function truncated(source: string, byte: number, inside: string): HotpathError {
  return new HotpathError(
    ErrorCode.ProfileInvalid,
    `${source} is truncated (ended at byte ${byte} ${inside}). The file was probably cut off while being written; ${RERECORD.toLowerCase()}`,
    { file: source, byte },
  );
}

/** Bytes that are not JSON at all, or JSON with a syntax error. */
export function badJson(source: string, what: string, byte: number, position: string): HotpathError {
  return new HotpathError(
    ErrorCode.ProfileInvalid,
    `${source} is not valid JSON: ${what} at byte ${byte} (${position}). The file is damaged or not a .cpuprofile; ${RERECORD.toLowerCase()}`,
    { file: source, byte },
  );
}

export function emptyFile(source: string): HotpathError {
  return new HotpathError(
    ErrorCode.ProfileInvalid,
    `${source} is empty. The profiler probably never finished writing it (e.g. the process was killed before exiting); ${RERECORD.toLowerCase()}`,
    { file: source },
  );
}

export function profileNotFound(path: string, reason: string): HotpathError {
  return new HotpathError(ErrorCode.ProfileNotFound, `Cannot open profile ${path}: ${reason}.`, { file: path });
}

/** The profile does not fit in memory (a typed array, buffer or string over the engine's limits). */
export function tooLarge(source: string, detail: string): HotpathError {
  return new HotpathError(
    ErrorCode.ProfileInvalid,
    `${source} is too large to load (${detail}). Record a shorter profile, or a coarser one (a larger --cpu-prof-interval).`,
    { file: source },
  );
}
