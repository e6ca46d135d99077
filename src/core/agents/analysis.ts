/**
 * The profile behind a read tool: a run of this session, or a profile on disk in any format Hotpath
 * opens (a .cpuprofile, pprof, a 0x capture; a run's main profile with its worker threads), read as
 * `hotpath report` and VS Code read it and kept while it is unchanged (the next question about the
 * same profile — a page of lines, another function — answers from memory).
 */
import * as fs from 'node:fs';
import type { Attribution } from '../attribution/types';
import { attributedLines } from '../attribution/rank';
import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import type { Warning } from '../common/warnings';
import type { LabelFilter } from '../pprof/labels';
import type { ProfileModel } from '../profile';
import type { PathMapOptions } from '../profile/pathMap';
import { hotpathOverhead, withoutHotpathRows } from '../profile/selfFrames';
import { threadSummary } from '../profile/threads';
import type { RunResultAny } from '../report';
import type { V8Collection, V8FunctionSignals } from '../v8/types';
import type { ThreadHotLine, ThreadHotspot } from '../workflow/analyze';
import type { PreflightCheck } from '../workflow/preflight';
import type { EventLoopResult, MemoryResult } from '../workflow/memoryAndLoop';
import { threadProfilesOf } from '../workflow/profileStore';
import { reportProfile, type ReportResult } from '../workflow/report';
import { threadsOfFunction } from '../annotate/build';
import { analyzeThreads, loadThreads } from '../workflow/threadsProfile';

export interface AnalyzedProfile {
  profilePath: string;
  model: ProfileModel;
  attribution: Attribution;
  v8?: V8Collection;
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  /** Every placed line, heaviest own time first (none in a heap or function-level profile). */
  lines: ThreadHotLine[];
  /** The ranked functions (a function-level profile's rows: it has no lines). */
  hotspots: ThreadHotspot[];
  warnings: Warning[];
  /** A heap profile (pprof): its allocation sites in the profile's own unit, instead of time rows. */
  allocations?: ReportResult['allocations'];
  /**
   * A run with worker threads, read as the editor reads it: every thread in one model (shares are of
   * all the threads' time together); the threads, and which of them ran an attribution function.
   */
  threads?: { labels: string[]; of(id: number): string[] };
  /** From a run: what else it measured. */
  memory?: MemoryResult;
  eventLoop?: EventLoopResult;
  checks?: PreflightCheck[];
  requestsPerSecond?: number;
}

/** How to read a production profile (pprof, 0x): the sample type, a label filter, paths from another machine. */
export interface ReadOptions {
  sampleType?: string;
  labels?: LabelFilter[];
  pathMap?: PathMapOptions;
}

/** V8's view of an attribution function (through its model function), when collected. */
export function v8Of(a: Pick<AnalyzedProfile, 'attribution' | 'v8Functions'>, id: number): V8FunctionSignals | undefined {
  const f = id >= 0 ? a.attribution.functions[id]?.model ?? -1 : -1;
  return f >= 0 ? a.v8Functions?.get(f) : undefined;
}

/** The placed lines as the report ranks them: without Hotpath's own frames; none where the model holds bytes or has no lines. */
function linesOf(model: ProfileModel, attribution: Attribution, thread: (id: number) => string): ThreadHotLine[] {
  if (model.origin && (model.origin.unit !== 'us' || model.origin.granularity === 'functions')) return [];
  return withoutHotpathRows(model, attributedLines(model, attribution), hotpathOverhead(model)).map((l) => ({ ...l, thread: thread(l.id) }));
}

function fromParts(profilePath: string, model: ProfileModel, attribution: Attribution, rest: Partial<AnalyzedProfile>): AnalyzedProfile {
  return { profilePath, model, attribution, lines: linesOf(model, attribution, () => 'main'), hotspots: [], warnings: [], ...rest };
}

/** A run's profile: its own model when the run kept one and profiled one thread, else its profile files (all threads, as the editor reads them). */
export async function analyzedRun(result: RunResultAny, cache: ProfileCache, token?: CancellationToken): Promise<AnalyzedProfile> {
  const threads = 'profiles' in result && Array.isArray(result.profiles) ? result.profiles.length : 1;
  if (threads <= 1 && 'model' in result && result.model && 'attribution' in result && result.attribution && 'profilePath' in result) {
    const r = result as Extract<RunResultAny, { kind: 'profile' | 'script' | 'report' }>;
    return fromParts(r.profilePath, r.model, r.attribution, {
      v8: r.v8, v8Functions: r.v8Functions, warnings: r.warnings, checks: r.checks, hotspots: r.hotspots,
      ...(r.kind === 'profile' ? { memory: r.memory, eventLoop: r.eventLoop, requestsPerSecond: r.load.requests.mean } : {}),
    });
  }
  const file = 'profilePath' in result && typeof result.profilePath === 'string' ? result.profilePath : undefined;
  if (!file) {
    throw new HotpathError(ErrorCode.InvalidOption, `This run (${result.kind}) recorded no profile to read lines from: hotpath_report shows its result; hotpath_profile records a profile.`);
  }
  const a = await cache.load(file, {}, token);
  if (result.kind !== 'profile') return { ...a, ...('checks' in result ? { checks: result.checks } : {}) };
  return { ...a, checks: result.checks, memory: result.memory, eventLoop: result.eventLoop, requestsPerSecond: result.load.requests.mean };
}

interface CacheEntry {
  stamp: string;
  report?: Promise<ReportResult>;
  analysis?: Promise<AnalyzedProfile>;
}

/** Rows the cached report keeps (the most hotpath_report asks for). */
const REPORT_ROWS = 100;

/** Profiles read from disk, by path and read options, while their size and modification time stay the same. */
export class ProfileCache {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(private readonly size = 3) {}

  /** `hotpath report`'s result for the profile (every thread of a run, as the CLI ranks them). */
  async report(file: string, read: ReadOptions, token?: CancellationToken): Promise<ReportResult> {
    const entry = await this.entry(file, read);
    entry.report ??= this.settle(file, read, reportProfile(file, { limit: REPORT_ROWS, token, read }));
    return entry.report;
  }

  /** The profile to read lines and functions from: a run's threads merged as VS Code shows them, else the report's model. */
  async load(file: string, read: ReadOptions, token?: CancellationToken): Promise<AnalyzedProfile> {
    const entry = await this.entry(file, read);
    entry.analysis ??= this.settle(file, read, this.analyze(file, read, token));
    return entry.analysis;
  }

  private async analyze(file: string, read: ReadOptions, token?: CancellationToken): Promise<AnalyzedProfile> {
    const threads = await threadProfilesOf(file, token);
    if (threads.length > 1) {
      const t = await analyzeThreads(await loadThreads(threads, file, token ?? neverCancelled), { limit: REPORT_ROWS, profilePath: file, token });
      // The threads a function ran in (its own frames and those it ran inlined in), main first.
      const of = (id: number) => (id >= 0 ? threadsOfFunction(t.analysis.attribution, t.threadsOf, id) : []);
      return {
        profilePath: file, model: t.model, attribution: t.analysis.attribution, v8: t.v8, v8Functions: t.v8Functions,
        lines: linesOf(t.model, t.analysis.attribution, (id) => threadSummary(of(id))), hotspots: t.analysis.hotspots,
        warnings: [...t.model.warnings, ...(t.analysis.overhead ? [t.analysis.overhead] : [])], threads: { labels: threads.map((x) => x.thread), of },
      };
    }
    const r = await this.report(file, read, token);
    return fromParts(r.profilePath, r.model, r.attribution, { v8: r.v8, v8Functions: r.v8Functions, warnings: r.warnings, hotspots: r.hotspots, ...(r.allocations ? { allocations: r.allocations } : {}) });
  }

  /** A failed read is not kept (the next call tries again). */
  private settle<T>(file: string, read: ReadOptions, p: Promise<T>): Promise<T> {
    p.catch(() => this.entries.delete(keyOf(file, read)));
    return p;
  }

  private async entry(file: string, read: ReadOptions): Promise<CacheEntry> {
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(file);
    } catch {
      throw new HotpathError(ErrorCode.ProfileNotFound, `There is no profile at ${file} (deleted or moved?). Profile again with hotpath_profile, or pass the path of an existing profile (.cpuprofile, .pb.gz, .pprof, a 0x folder).`, { file });
    }
    if (!stat.isFile() && !stat.isDirectory()) throw new HotpathError(ErrorCode.ProfileInvalid, `${file} is not a regular file: pass the path of a profile (.cpuprofile, .pb.gz, .pprof) or of a 0x output folder.`, { file });
    const stamp = `${stat.size}:${stat.mtimeMs}`;
    const key = keyOf(file, read);
    const hit = this.entries.get(key);
    if (hit && hit.stamp === stamp) {
      // Most recently used last.
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const entry: CacheEntry = { stamp };
    this.entries.set(key, entry);
    while (this.entries.size > this.size) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}

const keyOf = (file: string, read: ReadOptions) => JSON.stringify([file, read.sampleType ?? null, read.labels ?? [], read.pathMap ?? null]);

/** Whether a profile's display file is the one the agent named (a path, or the end of one). */
export function sameFile(profileFile: string, asked: string, roots: readonly string[]): boolean {
  if (!profileFile || !asked) return false;
  const clean = asked.replace(/^file:\/\//, '').replace(/^\.\//, '');
  if (profileFile === clean) return true;
  if (profileFile.endsWith(`/${clean}`)) return true;
  return roots.some((r) => profileFile === `${r.replace(/\/$/, '')}/${clean}`);
}
