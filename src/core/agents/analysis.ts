/**
 * The profile behind a read tool: a run of this session (its model and attribution, already built) or
 * a .cpuprofile on disk, read once and kept while it is unchanged (the next question about the same
 * profile — a page of lines, another function — answers from memory).
 */
import * as fs from 'node:fs';
import type { Attribution } from '../attribution/types';
import { attributedLines } from '../attribution/rank';
import type { CancellationToken } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import type { Warning } from '../common/warnings';
import type { ProfileModel } from '../profile';
import type { RunResultAny } from '../report';
import type { V8Collection, V8FunctionSignals } from '../v8/types';
import type { ThreadHotLine } from '../workflow/analyze';
import type { PreflightCheck } from '../workflow/preflight';
import type { EventLoopResult, MemoryResult } from '../workflow/memoryAndLoop';
import { reportProfile } from '../workflow/report';

export interface AnalyzedProfile {
  profilePath: string;
  model: ProfileModel;
  attribution: Attribution;
  v8?: V8Collection;
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  /** Every placed line, heaviest own time first. */
  lines: ThreadHotLine[];
  warnings: Warning[];
  /** From a run: what else it measured. */
  memory?: MemoryResult;
  eventLoop?: EventLoopResult;
  checks?: PreflightCheck[];
  requestsPerSecond?: number;
}

/** V8's view of an attribution function (through its model function), when collected. */
export function v8Of(a: Pick<AnalyzedProfile, 'attribution' | 'v8Functions'>, id: number): V8FunctionSignals | undefined {
  const f = id >= 0 ? a.attribution.functions[id]?.model ?? -1 : -1;
  return f >= 0 ? a.v8Functions?.get(f) : undefined;
}

function fromParts(profilePath: string, model: ProfileModel, attribution: Attribution, rest: Partial<AnalyzedProfile>): AnalyzedProfile {
  return { profilePath, model, attribution, lines: attributedLines(model, attribution).map((l) => ({ ...l, thread: 'main' })), warnings: [], ...rest };
}

/** A run's profile: its own model when the run kept one, else its profile file. */
export async function analyzedRun(result: RunResultAny, cache: ProfileCache, token?: CancellationToken): Promise<AnalyzedProfile> {
  if ('model' in result && result.model && 'attribution' in result && result.attribution && 'profilePath' in result) {
    const r = result as Extract<RunResultAny, { kind: 'profile' | 'script' | 'report' }>;
    return fromParts(r.profilePath, r.model, r.attribution, {
      v8: r.v8, v8Functions: r.v8Functions, warnings: r.warnings, checks: r.checks,
      ...(r.kind === 'profile' ? { memory: r.memory, eventLoop: r.eventLoop, requestsPerSecond: r.load.requests.mean } : {}),
    });
  }
  const file = 'profilePath' in result && typeof result.profilePath === 'string' ? result.profilePath : undefined;
  if (!file) {
    throw new HotpathError(ErrorCode.InvalidOption, `This run (${result.kind}) recorded no profile to read lines from: hotpath_report shows its result; hotpath_profile records a profile.`);
  }
  return cache.load(file, token);
}

/** Profiles read from disk, by path, while their size and modification time stay the same. */
export class ProfileCache {
  private readonly entries = new Map<string, { stamp: string; analysis: Promise<AnalyzedProfile> }>();

  constructor(private readonly size = 3) {}

  async load(file: string, token?: CancellationToken): Promise<AnalyzedProfile> {
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(file);
    } catch {
      throw new HotpathError(ErrorCode.ProfileNotFound, `There is no profile at ${file} (deleted or moved?). Profile again with hotpath_profile, or pass the path of an existing .cpuprofile.`, { file });
    }
    if (!stat.isFile()) throw new HotpathError(ErrorCode.ProfileInvalid, `${file} is not a regular file: pass the path of a .cpuprofile.`, { file });
    const stamp = `${stat.size}:${stat.mtimeMs}`;
    const hit = this.entries.get(file);
    if (hit && hit.stamp === stamp) {
      // Most recently used last.
      this.entries.delete(file);
      this.entries.set(file, hit);
      return hit.analysis;
    }
    const analysis = reportProfile(file, { limit: 20, token }).then((r) => fromParts(r.profilePath, r.model, r.attribution, { v8: r.v8, v8Functions: r.v8Functions, warnings: r.warnings }));
    this.entries.set(file, { stamp, analysis });
    analysis.catch(() => this.entries.delete(file));
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
    return analysis;
  }
}

/** Whether a profile's display file is the one the agent named (a path, or the end of one). */
export function sameFile(profileFile: string, asked: string, roots: readonly string[]): boolean {
  if (!profileFile || !asked) return false;
  const clean = asked.replace(/^file:\/\//, '').replace(/^\.\//, '');
  if (profileFile === clean) return true;
  if (profileFile.endsWith(`/${clean}`)) return true;
  return roots.some((r) => profileFile === `${r.replace(/\/$/, '')}/${clean}`);
}
