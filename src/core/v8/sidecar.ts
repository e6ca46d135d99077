/**
 * The signals of a run are saved next to its profile as `<profile>.v8.json`, so `hotpath report`, the
 * flamegraph and VS Code show them again for a saved profile (the .cpuprofile itself stays standard).
 */
import { writeFile } from 'node:fs/promises';
import { PROFILE_NAMED_FILE_MAX_BYTES, readBoundedFile } from '../common/boundedRead';
import { V8_SIGNALS_VERSION, type V8RawSignals } from './types';

export function v8SidecarPath(profilePath: string): string {
  return `${profilePath}.v8.json`;
}

export async function writeV8Sidecar(profilePath: string, signals: V8RawSignals): Promise<string> {
  const file = v8SidecarPath(profilePath);
  await writeFile(file, JSON.stringify(signals));
  return file;
}

/** The saved signals, or undefined when there are none or they are unreadable or of another version. */
export async function readV8Sidecar(profilePath: string): Promise<V8RawSignals | undefined> {
  try {
    // Beside a profile someone may have sent: a regular file, bounded like any profile-named file.
    const value = JSON.parse((await readBoundedFile(v8SidecarPath(profilePath), { maxBytes: PROFILE_NAMED_FILE_MAX_BYTES })).toString('utf8'));
    return value && value.version === V8_SIGNALS_VERSION && Array.isArray(value.functions) ? value : undefined;
  } catch {
    return undefined;
  }
}
