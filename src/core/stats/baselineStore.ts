import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode, HotpathError, errorMessage } from '../common/errors';
import type { LoadOptions } from '../load/options';
import type { LoadResult } from '../load/result';
import { sanitizeBaselineName } from './baselineName';
import { mean } from './descriptive';
import type { RunEnvironment } from './environment';
import type { RunSummary } from './runSummary';
import type { LeakRecord } from '../memory/leakStore';

export { baselineNameFromCommand, sanitizeBaselineName } from './baselineName';

/** A saved baseline: the K runs a verify is compared against, and everything needed to repeat them. */
export interface Baseline {
  version: 1;
  name: string;
  createdAt: string;
  /** The command that started the app, e.g. ['node', 'app.js']. */
  command: string[];
  cwd: string;
  /** The resolved load options, so a verify can apply exactly the same load. */
  load: LoadOptions;
  runs: RunSummary[];
  /** The full normalised results behind `runs`, for reports and re-analysis. */
  results?: LoadResult[];
  environment: RunEnvironment;
  /** A leak check run with the baseline (`baseline --leak`): verify compares the growth rate with it. */
  leak?: LeakRecord;
}

export interface BaselineSummary {
  name: string;
  file: string;
  /** ISO date; '' when the file could not be read. */
  createdAt: string;
  command: string[];
  runCount: number;
  /** Mean of the runs' req/s; null when the file could not be read. */
  requestsPerSecond: number | null;
  /** Node version the baseline ran on; null when the file could not be read. */
  nodeVersion: string | null;
  /** Why the file is unusable, when it is. */
  problem?: string;
}

/** The file operations the store needs; tests pass wrappers that fail on purpose. */
export type BaselineFs = Pick<typeof fsp, 'mkdir' | 'writeFile' | 'rename' | 'readFile' | 'readdir' | 'unlink'>;

const isNotFound = (err: unknown): boolean => (err as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why `value` is not a usable version-1 baseline, or undefined when it is. */
function shapeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'it is not a JSON object';
  if (typeof value.version === 'number' && value.version > 1) {
    return `it was written by a newer Hotpath (format ${value.version}); update Hotpath to read it`;
  }
  if (value.version !== 1) return `it has no supported format version (got ${JSON.stringify(value.version)})`;
  if (typeof value.name !== 'string' || typeof value.createdAt !== 'string') return 'its name or createdAt is missing';
  if (!Array.isArray(value.command) || !value.command.every((c) => typeof c === 'string')) return 'its command is missing';
  if (!isRecord(value.load) || !isRecord(value.environment)) return 'its load options or environment are missing';
  if (!Array.isArray(value.runs) || value.runs.length === 0) return 'it has no runs';
  const badRun = value.runs.findIndex(
    (r) => !isRecord(r) || !Number.isFinite(r.requestsPerSecond) || !Number.isFinite(r.p99Ms),
  );
  if (badRun >= 0) return `run ${badRun + 1} has no numeric requestsPerSecond/p99Ms`;
  return undefined;
}

/**
 * Baselines as one JSON file each in `<workspace>/.hotpath/baselines`. Writes are atomic (a temporary
 * file renamed over the old one), so an interrupted save never leaves half a baseline behind.
 */
export class BaselineStore {
  constructor(
    readonly dir: string,
    private readonly fs: BaselineFs = fsp,
  ) {}

  fileFor(name: string): string {
    return path.join(this.dir, `${sanitizeBaselineName(name)}.json`);
  }

  /** Writes the baseline under its sanitised name (replacing one of the same name); returns the file. */
  async save(baseline: Baseline): Promise<string> {
    const name = sanitizeBaselineName(baseline.name);
    const file = this.fileFor(name);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    const json = `${JSON.stringify({ ...baseline, name }, null, 2)}\n`;
    await this.fs.mkdir(this.dir, { recursive: true });
    try {
      await this.fs.writeFile(tmp, json, 'utf8');
      await this.fs.rename(tmp, file);
    } catch (err) {
      await this.fs.unlink(tmp).catch(() => { /* it may never have been created */ });
      // No HotpathError code fits a full or read-only disk; Node's own message (ENOSPC, EACCES) is the useful part.
      throw new Error(`Could not save baseline '${name}' to ${file}: ${errorMessage(err)}`, { cause: err });
    }
    return file;
  }

  async load(name: string): Promise<Baseline> {
    const safe = sanitizeBaselineName(name);
    return this.read(this.fileFor(safe), safe);
  }

  private async read(file: string, name: string): Promise<Baseline> {
    const recreate = `Run \`hotpath baseline --name ${name} -- <command>\` to create it again.`;
    let text: string;
    try {
      text = await this.fs.readFile(file, 'utf8');
    } catch (err) {
      if (isNotFound(err)) {
        throw new HotpathError(
          ErrorCode.BaselineNotFound,
          `No baseline named '${name}' in ${this.dir}. Run \`hotpath baseline --name ${name} -- <command>\` first.`,
          { reason: 'missing', file },
        );
      }
      throw new HotpathError(ErrorCode.BaselineNotFound, `Could not read baseline '${name}' (${file}): ${errorMessage(err)}`, {
        reason: 'unreadable',
        file,
      });
    }
    // Corrupt and unreadable files use BaselineNotFound too: either way there is no usable baseline by
    // that name, and details.reason tells them apart.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new HotpathError(
        ErrorCode.BaselineNotFound,
        `Baseline '${name}' (${file}) is not valid JSON (${errorMessage(err)}); it may have been edited or truncated. ${recreate}`,
        { reason: 'invalid', file },
      );
    }
    const problem = shapeProblem(parsed);
    if (problem) {
      throw new HotpathError(ErrorCode.BaselineNotFound, `Baseline '${name}' (${file}) cannot be used: ${problem}. ${recreate}`, {
        reason: 'invalid',
        file,
      });
    }
    return parsed as Baseline;
  }

  /** Every baseline, newest first; unusable files are listed last with the reason, not hidden. */
  async list(): Promise<BaselineSummary[]> {
    let entries: string[];
    try {
      entries = await this.fs.readdir(this.dir);
    } catch (err) {
      if (isNotFound(err)) return [];
      throw new HotpathError(ErrorCode.BaselineNotFound, `Could not list baselines in ${this.dir}: ${errorMessage(err)}`, {
        reason: 'unreadable',
      });
    }
    const summaries = await Promise.all(
      entries
        .filter((entry) => entry.endsWith('.json'))
        .map(async (entry): Promise<BaselineSummary> => {
          const name = entry.slice(0, -'.json'.length);
          const file = path.join(this.dir, entry);
          try {
            const b = await this.read(file, name);
            return {
              name: b.name, file, createdAt: b.createdAt, command: b.command, runCount: b.runs.length,
              requestsPerSecond: mean(b.runs.map((r) => r.requestsPerSecond)), nodeVersion: b.environment.nodeVersion,
            };
          } catch (err) {
            return { name, file, createdAt: '', command: [], runCount: 0, requestsPerSecond: null, nodeVersion: null, problem: errorMessage(err) };
          }
        }),
    );
    // ISO dates sort as strings; '' (unreadable) sorts after every date in descending order.
    return summaries.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.name.localeCompare(b.name));
  }

  async delete(name: string): Promise<void> {
    const safe = sanitizeBaselineName(name);
    try {
      await this.fs.unlink(this.fileFor(safe));
    } catch (err) {
      if (isNotFound(err)) {
        throw new HotpathError(ErrorCode.BaselineNotFound, `No baseline named '${safe}' in ${this.dir}; nothing was deleted.`, {
          reason: 'missing',
        });
      }
      throw new HotpathError(ErrorCode.BaselineNotFound, `Could not delete baseline '${safe}': ${errorMessage(err)}`, {
        reason: 'unreadable',
      });
    }
  }
}
