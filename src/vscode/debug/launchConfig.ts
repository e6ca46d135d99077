/**
 * launch.json `hotpath` configurations → run requests (no vscode import; unit-tested in plain Node).
 * Every mistake gets a message that names the attribute and shows a working example.
 */
import * as path from 'node:path';
import type { LoadOptionsInput } from '../../core/load/options';
import { sanitizeBaselineName } from '../../core/stats/baselineStore';
import type { RunSettings } from '../settings';
import type { TargetSpec } from '../targets/targetSpec';
import type { RunRequest } from '../workflow/runs';

export interface HotpathLaunchConfig {
  type?: string;
  request?: string;
  name?: string;
  mode?: 'profile' | 'baseline' | 'verify' | 'script' | 'leak';
  program?: string;
  command?: string[];
  runtimeExecutable?: string;
  args?: string[];
  cwd?: string;
  env?: Record<string, string | null>;
  load?: LoadOptionsInput;
  runs?: number;
  baselineName?: string;
  samplingIntervalMicros?: number;
  /** Profile mode: sample allocations too. */
  memory?: boolean;
}

const MODES = ['profile', 'baseline', 'verify', 'script', 'leak'] as const;
const EXAMPLE = '{"type": "hotpath", "request": "launch", "name": "Profile", "mode": "profile", "program": "${workspaceFolder}/server.js"}';

export function requestFromLaunchConfig(config: HotpathLaunchConfig, folder: string, defaults: RunSettings): RunRequest {
  const mode = config.mode ?? 'profile';
  if (!MODES.includes(mode)) throw new Error(`launch.json: "mode" must be one of ${MODES.join(', ')} (got ${JSON.stringify(mode)}).`);
  const cwd = config.cwd ? path.resolve(folder, config.cwd) : folder;
  let command: string[];
  if (Array.isArray(config.command) && config.command.length > 0 && config.command.every((c) => typeof c === 'string')) {
    command = [...config.command];
  } else if (typeof config.program === 'string' && config.program) {
    command = [config.runtimeExecutable || 'node', config.program, ...(Array.isArray(config.args) ? config.args.map(String) : [])];
  } else {
    throw new Error(`launch.json: a hotpath configuration needs "program" (a script run with node) or "command" (an array), e.g. ${EXAMPLE}`);
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(config.env ?? {})) if (typeof v === 'string') env[k] = v;
  const name = config.name?.trim() || path.basename(config.program ?? command.join(' '));
  const target: TargetSpec = { name, command, cwd, env };
  const settings: RunSettings = {
    load: { ...defaults.load, ...(config.load ?? {}) },
    runs: config.runs ?? defaults.runs,
    samplingIntervalMicros: config.samplingIntervalMicros ?? defaults.samplingIntervalMicros,
    ...(config.memory === true ? { memoryIntervalBytes: defaults.memoryIntervalBytes ?? 32768 } : config.memory === false ? {} : defaults.memoryIntervalBytes ? { memoryIntervalBytes: defaults.memoryIntervalBytes } : {}),
    ...(defaults.blockThresholdMs ? { blockThresholdMs: defaults.blockThresholdMs } : {}),
    ...(defaults.leak ? { leak: defaults.leak } : {}),
  };
  if (mode === 'baseline' || mode === 'verify') {
    if (settings.runs < 2) throw new Error('launch.json: "runs" must be at least 2: a comparison needs the spread between runs.');
    const baselineName = sanitizeBaselineName(config.baselineName ?? path.basename(config.program ?? command[command.length - 1]).replace(/\.[cm]?[jt]s$/, ''));
    return { kind: mode, target, settings, baselineName };
  }
  return { kind: mode, target, settings };
}
