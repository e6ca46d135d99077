/**
 * The signals of a run are saved next to its profile as `<profile>.v8.json`, so `hotpath report`, the
 * flamegraph and VS Code show them again for a saved profile (the .cpuprofile itself stays standard).
 */
import { readFile, writeFile } from 'node:fs/promises';
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
    const value = JSON.parse(await readFile(v8SidecarPath(profilePath), 'utf8'));
    return value && value.version === V8_SIGNALS_VERSION && Array.isArray(value.functions) ? value : undefined;
  } catch {
    return undefined;
  }
}
