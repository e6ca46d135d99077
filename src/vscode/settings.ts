import * as vscode from 'vscode';
import type { LoadOptionsInput } from '../core/load/options';
import type { TargetSpec } from './targets/targetSpec';

export interface RunSettings {
  load: LoadOptionsInput;
  runs: number;
  /** Unset: chosen from the run's length (hotpath.profile.samplingIntervalMicros = 0, the default). */
  samplingIntervalMicros?: number;
  /** hotpath.profile.memory: sample allocations every this many bytes; undefined when off. */
  memoryIntervalBytes?: number;
  blockThresholdMs?: number;
  /** hotpath.leak.*: the leak check's rungs. */
  leak?: { rungRequests?: number; idleSeconds?: number };
}

/** A setting's value only when the user (or workspace) set it, not its default. */
function explicitly<T>(config: vscode.WorkspaceConfiguration, key: string): T | undefined {
  const i = config.inspect<T>(key);
  return i?.workspaceFolderValue ?? i?.workspaceValue ?? i?.globalValue;
}

/** hotpath.profile.samplingIntervalMicros: 0 (the default) leaves the choice to the run; V8 takes no less than 50 µs here. */
function samplingInterval(value: number | undefined): { samplingIntervalMicros?: number } {
  return value !== undefined && Number.isFinite(value) && value > 0 ? { samplingIntervalMicros: Math.max(50, Math.round(value)) } : {};
}

/** The hotpath.* settings for a folder, with a target's own path/method/headers/body on top. */
export function runSettings(scope: vscode.Uri | undefined, target?: Pick<TargetSpec, 'path' | 'method' | 'headers' | 'body' | 'requests'>): RunSettings {
  const load = vscode.workspace.getConfiguration('hotpath.load', scope);
  const input: LoadOptionsInput = {
    connections: load.get<number>('connections'),
    durationSeconds: load.get<number>('durationSeconds'),
    warmupSeconds: load.get<number>('warmupSeconds'),
    pipelining: load.get<number>('pipelining'),
    // Unset (neither the target nor the user's settings name a path): the run offers the paths the app
    // announces and registers once it listens, instead of assuming '/'.
    path: target?.path ?? explicitly(load, 'path'),
    method: target?.method ?? load.get<string>('method'),
    ...(target?.headers ? { headers: target.headers } : {}),
    ...(target?.body !== undefined ? { body: target.body } : {}),
    ...(target?.requests?.length ? { routes: target.requests } : {}),
  };
  const profile = vscode.workspace.getConfiguration('hotpath.profile', scope);
  const leak = vscode.workspace.getConfiguration('hotpath.leak', scope);
  return {
    load: input,
    runs: vscode.workspace.getConfiguration('hotpath.baseline', scope).get<number>('runs') ?? 3,
    ...samplingInterval(profile.get<number>('samplingIntervalMicros')),
    ...(profile.get<boolean>('memory') ? { memoryIntervalBytes: profile.get<number>('memoryIntervalBytes') ?? 32768 } : {}),
    blockThresholdMs: profile.get<number>('blockThresholdMs') ?? 20,
    leak: { rungRequests: leak.get<number>('rungRequests') ?? 2000, idleSeconds: leak.get<number>('idleSeconds') ?? 5 },
  };
}

/** How a comparison measures (hotpath.compare.*): per-run load and the adaptive rule. */
export interface CompareSettings {
  durationSeconds: number;
  warmupSeconds: number;
  targetCiPercent: number;
  budgetSeconds: number;
  /** Exactly this many pairs; 0 = adaptive. */
  pairs: number;
}

/** Profile Startup: profiled starts, and timed starts (undefined: adaptive; the setting's 0). */
export function startupSettings(scope: vscode.Uri | undefined): { profileRuns: number; runs?: number } {
  const c = vscode.workspace.getConfiguration('hotpath.startup', scope);
  const runs = c.get<number>('runs') || undefined;
  return { profileRuns: c.get<number>('profileRuns') ?? 10, ...(runs ? { runs } : {}) };
}

export function compareSettings(scope: vscode.Uri | undefined): CompareSettings {
  const c = vscode.workspace.getConfiguration('hotpath.compare', scope);
  return {
    durationSeconds: c.get<number>('durationSeconds') ?? 3,
    warmupSeconds: c.get<number>('warmupSeconds') ?? 1,
    targetCiPercent: c.get<number>('targetCiPercent') ?? 5,
    budgetSeconds: c.get<number>('budgetSeconds') ?? 120,
    pairs: c.get<number>('pairs') ?? 0,
  };
}
