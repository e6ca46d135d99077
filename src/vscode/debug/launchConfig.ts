/**
 * launch.json `hotpath` configurations → run requests (no vscode import; unit-tested in plain Node).
 * Every mistake gets a message that names the attribute and shows a working example.
 */
import * as path from 'node:path';
import type { LoadOptionsInput } from '../../core/load/options';
import { sanitizeBaselineName } from '../../core/stats/baselineStore';
import type { CompareSettings, RunSettings } from '../settings';
import type { SideSpec } from '../../core/variants/sides';
import type { TargetSpec } from '../targets/targetSpec';
import type { RunRequest } from '../workflow/runs';

export interface HotpathLaunchConfig {
  type?: string;
  request?: string;
  name?: string;
  mode?: 'profile' | 'baseline' | 'verify' | 'script' | 'compare' | 'leak';
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
  /** mode "compare": the two sides and how long to measure. */
  compare?: LaunchCompare;
  /** Profile mode: sample allocations too. */
  memory?: boolean;
}

export interface LaunchCompare {
  /** Side A runs this git revision from a temporary worktree; B the working tree. */
  base?: string;
  /** Node versions or binaries: [A, B], or one for both sides. */
  node?: string | string[];
  envA?: Record<string, string>;
  envB?: Record<string, string>;
  nodeArgsA?: string[];
  nodeArgsB?: string[];
  labelA?: string;
  labelB?: string;
  /** Time a command that runs to completion instead of loading an HTTP app. */
  script?: boolean;
  pairs?: number;
  targetCiPercent?: number;
  budgetSeconds?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
}

const MODES = ['profile', 'baseline', 'verify', 'script', 'compare', 'leak'] as const;
const COMPARE_EXAMPLE = '"compare": {"base": "HEAD~1"} or {"node": ["22", "24"]} or {"envA": {"NODE_ENV": "development"}, "envB": {"NODE_ENV": "production"}}';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const stringRecord = (v: unknown): Record<string, string> => Object.fromEntries(Object.entries(typeof v === 'object' && v !== null ? v : {}).filter(([, x]) => typeof x === 'string')) as Record<string, string>;

/** The two sides of a `mode: "compare"` configuration; an error names what is missing. */
function compareSides(c: LaunchCompare | undefined): [SideSpec, SideSpec] {
  if (!c || typeof c !== 'object') throw new Error(`launch.json: mode "compare" needs a "compare" object saying what differs, e.g. ${COMPARE_EXAMPLE}.`);
  const nodes = typeof c.node === 'string' ? [c.node] : strings(c.node);
  if (nodes.length > 2) throw new Error('launch.json: "compare.node" takes one version (both sides) or two (A, then B).');
  const a: SideSpec = { env: stringRecord(c.envA), nodeArgs: strings(c.nodeArgsA) };
  const b: SideSpec = { env: stringRecord(c.envB), nodeArgs: strings(c.nodeArgsB) };
  if (typeof c.base === 'string' && c.base.trim()) a.base = c.base.trim();
  if (nodes.length) { a.node = nodes[0]; b.node = nodes[nodes.length - 1]; }
  if (typeof c.labelA === 'string') a.label = c.labelA;
  if (typeof c.labelB === 'string') b.label = c.labelB;
  const differs = a.base !== undefined || (nodes.length === 2 && nodes[0] !== nodes[1]) || JSON.stringify(a.env) !== JSON.stringify(b.env) || a.nodeArgs!.join(' ') !== b.nodeArgs!.join(' ');
  if (!differs) throw new Error(`launch.json: the two sides of "compare" are the same; say what differs, e.g. ${COMPARE_EXAMPLE}.`);
  return [a, b];
}
const EXAMPLE = '{"type": "hotpath", "request": "launch", "name": "Profile", "mode": "profile", "program": "${workspaceFolder}/server.js"}';

const COMPARE_DEFAULTS: CompareSettings = { durationSeconds: 3, warmupSeconds: 1, targetCiPercent: 5, budgetSeconds: 120, pairs: 0 };

export function requestFromLaunchConfig(config: HotpathLaunchConfig, folder: string, defaults: RunSettings, compareDefaults: CompareSettings = COMPARE_DEFAULTS): RunRequest {
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
  if (mode === 'compare') {
    const c = config.compare ?? {};
    const number = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fallback);
    const sides = compareSides(config.compare);
    const pairs = number(c.pairs, compareDefaults.pairs);
    if (pairs === 1) throw new Error('launch.json: "compare.pairs" must be at least 2 (or 0 for adaptive): one pair says nothing about noise.');
    return {
      kind: 'compare', target, settings, sides,
      compare: {
        durationSeconds: number(c.durationSeconds, compareDefaults.durationSeconds), warmupSeconds: number(c.warmupSeconds, compareDefaults.warmupSeconds),
        targetCiPercent: number(c.targetCiPercent, compareDefaults.targetCiPercent), budgetSeconds: number(c.budgetSeconds, compareDefaults.budgetSeconds),
        pairs, script: c.script === true,
      },
    };
  }
  return { kind: mode, target, settings };
}
