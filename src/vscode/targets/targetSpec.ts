import * as path from 'node:path';
import { splitCommandLine } from './commandLine';
import type { RouteInput } from '../../core/load/routes';

/** An app Hotpath can start and load, as written in `hotpath.targets` or remembered from the first run. */
export interface TargetSettings {
  name: string;
  command: string[] | string;
  cwd?: string;
  env?: Record<string, string>;
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Several routes with weights (as `--request` / a load file): `[{method, path, weight, headers, body}]`. */
  requests?: RouteInput[];
}

/** A target resolved against its workspace folder, ready for the core. */
export interface TargetSpec {
  name: string;
  command: string[];
  /** Absolute. */
  cwd: string;
  env: Record<string, string>;
  path?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  requests?: RouteInput[];
}

const isStringRecord = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => typeof x === 'string');

/** Validates one entry of `hotpath.targets`; the error says which field is wrong and how to fix it. */
export function resolveTarget(raw: unknown, folder: string, where = 'hotpath.targets'): TargetSpec {
  if (typeof raw !== 'object' || raw === null) throw new Error(`${where}: each target must be an object like {"name": "api", "command": ["node", "server.js"]}.`);
  const t = raw as Partial<TargetSettings>;
  const label = typeof t.name === 'string' && t.name.trim() ? t.name.trim() : undefined;
  if (!label) throw new Error(`${where}: a target has no "name"; give each target a short name.`);
  let command: string[];
  if (typeof t.command === 'string') command = splitCommandLine(t.command);
  else if (Array.isArray(t.command) && t.command.every((c) => typeof c === 'string')) command = [...t.command];
  else throw new Error(`${where}: target "${label}" needs "command", e.g. ["node", "server.js"] or "npm start".`);
  if (command.length === 0 || !command[0]) throw new Error(`${where}: target "${label}" has an empty command.`);
  if (t.env !== undefined && !isStringRecord(t.env)) throw new Error(`${where}: target "${label}": "env" must map names to string values.`);
  if (t.headers !== undefined && !isStringRecord(t.headers)) throw new Error(`${where}: target "${label}": "headers" must map names to string values.`);
  if (t.cwd !== undefined && typeof t.cwd !== 'string') throw new Error(`${where}: target "${label}": "cwd" must be a path.`);
  if (t.requests !== undefined && (!Array.isArray(t.requests) || t.requests.length === 0)) throw new Error(`${where}: target "${label}": "requests" must be a list such as [{"path": "/orders", "weight": 20}, {"path": "/report"}].`);
  return {
    name: label,
    command,
    cwd: t.cwd ? path.resolve(folder, t.cwd) : folder,
    env: { ...(t.env ?? {}) },
    ...(typeof t.path === 'string' ? { path: t.path } : {}),
    ...(typeof t.method === 'string' ? { method: t.method.toUpperCase() } : {}),
    ...(t.headers ? { headers: t.headers } : {}),
    ...(typeof t.body === 'string' ? { body: t.body } : {}),
    ...(t.requests ? { requests: [...t.requests] } : {}),
  };
}

/** What gets stored back (settings or workspace state): cwd relative to the folder again. */
export function targetToSettings(spec: TargetSpec, folder: string): TargetSettings {
  const rel = path.relative(folder, spec.cwd);
  return {
    name: spec.name, command: spec.command,
    ...(rel ? { cwd: rel } : {}),
    ...(Object.keys(spec.env).length ? { env: spec.env } : {}),
    ...(spec.path ? { path: spec.path } : {}),
    ...(spec.method ? { method: spec.method } : {}),
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.body ? { body: spec.body } : {}),
    ...(spec.requests ? { requests: spec.requests } : {}),
  };
}

/** The NODE_ENV a started target will see: its own env over the host's (what the launcher passes). */
export function effectiveNodeEnv(spec: TargetSpec, hostEnv: NodeJS.ProcessEnv = process.env): string | undefined {
  return spec.env.NODE_ENV ?? hostEnv.NODE_ENV;
}
