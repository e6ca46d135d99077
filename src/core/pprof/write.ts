/**
 * Writing a pprof export beside a profile (or where `--pprof` says), with the labels every export
 * carries: Hotpath's version and, when the profile's folder is a git checkout, its revision.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Attribution } from '../attribution/types';
import type { ProfileModel } from '../profile/types';
import { exportPprof, type PprofExportOptions } from './export';

export interface WrittenPprof {
  path: string;
  sampleType: string;
  totalValue: number;
  totalSamples: number;
  idleExcludedMs: number;
  callerLines: { placed: number; callerFrames: number };
}

let version: string | undefined;
/** Hotpath's own version, from the package.json above this bundle (dist/) or source file. */
export function hotpathVersion(): string {
  if (version !== undefined) return version;
  version = 'unknown';
  for (let dir = __dirname, i = 0; i < 6; i++, dir = path.dirname(dir)) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'hotpath' && pkg.version) return (version = pkg.version);
    } catch { /* not here */ }
  }
  return version;
}

/** The commit checked out in `dir` (with `-dirty` when it has uncommitted changes), or undefined. */
export function gitRevision(dir: string): string | undefined {
  try {
    const opts = { cwd: dir, encoding: 'utf8' as const, stdio: ['ignore', 'pipe', 'ignore'] as ['ignore', 'pipe', 'ignore'], timeout: 3000 };
    const sha = execFileSync('git', ['rev-parse', 'HEAD'], opts).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], opts).trim() !== '';
    return /^[0-9a-f]{40}$/.test(sha) ? `${sha}${dirty ? '-dirty' : ''}` : undefined;
  } catch {
    return undefined;
  }
}

/** Exports `model` to `file` (gzipped pprof). Labels: Hotpath's version, the git revision of `cwd`, then `options.labels`. */
export function writePprof(file: string, model: ProfileModel, attribution: Attribution | null, options: PprofExportOptions & { cwd?: string } = {}): WrittenPprof {
  const labels = { hotpath: hotpathVersion(), 'git revision': options.cwd ? gitRevision(options.cwd) : undefined, ...options.labels };
  const out = exportPprof(model, attribution, { ...options, labels });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, out.bytes);
  return { path: file, sampleType: out.sampleType, totalValue: out.totalValue, totalSamples: out.totalSamples, idleExcludedMs: out.idleExcludedMs, callerLines: out.callerLines };
}
