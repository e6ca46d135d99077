/**
 * Benchmark baselines: per task, the per-process means of one `hotpath bench --save NAME`, as one JSON
 * file each in `<project>/.hotpath/bench/`. A later `--baseline NAME` compares against them with the
 * same ratio statistics (independent runs: Welch on the logs). Writes are atomic.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { sanitizeBaselineName } from '../stats/baselineName';

export interface BenchBaseline {
  version: 1;
  name: string;
  createdAt: string;
  file: string;
  nodeVersion: string | null;
  /** Per task: each process's mean and p99 time per operation, ns. */
  tasks: Record<string, { runMeansNs: number[]; p99Ns: number[] }>;
}

export function benchBaselineDir(cwd: string): string {
  return path.join(cwd, '.hotpath', 'bench');
}

/** Where `--save NAME` writes and `--baseline NAME` reads (the name made a file name by the one helper). */
export function benchBaselinePath(dir: string, name: string): string {
  return path.join(dir, `${sanitizeBaselineName(name)}.json`);
}

export async function saveBenchBaseline(dir: string, baseline: BenchBaseline): Promise<string> {
  const name = sanitizeBaselineName(baseline.name);
  const file = benchBaselinePath(dir, name);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.mkdir(dir, { recursive: true });
  try {
    await fs.writeFile(tmp, `${JSON.stringify({ ...baseline, name }, null, 2)}\n`, 'utf8');
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.unlink(tmp).catch(() => undefined);
    throw new Error(`Could not save benchmark baseline '${name}' to ${file}: ${errorMessage(err)}`, { cause: err });
  }
  return file;
}

export async function loadBenchBaseline(dir: string, name: string): Promise<BenchBaseline> {
  const safe = sanitizeBaselineName(name);
  const file = benchBaselinePath(dir, safe);
  let value: unknown;
  try {
    value = JSON.parse(await fs.readFile(file, 'utf8'));
  } catch (err) {
    const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
    throw new HotpathError(ErrorCode.BaselineNotFound, missing
      ? `No benchmark baseline named '${safe}' in ${dir}. Run \`hotpath bench FILE --save ${safe}\` first.`
      : `Could not read benchmark baseline '${safe}' (${file}): ${errorMessage(err)}. Run \`hotpath bench FILE --save ${safe}\` to write it again.`, { file });
  }
  const b = value as Partial<BenchBaseline>;
  const tasksOk = b && typeof b.tasks === 'object' && b.tasks !== null && Object.values(b.tasks).every((t) => Array.isArray(t?.runMeansNs) && t.runMeansNs.every((x) => Number.isFinite(x) && x > 0));
  if (b?.version !== 1 || typeof b.name !== 'string' || !tasksOk) {
    throw new HotpathError(ErrorCode.BaselineNotFound, `${file} is not a benchmark baseline Hotpath can read (${b?.version !== undefined && b.version !== 1 ? `format ${b.version}` : 'damaged'}). Run \`hotpath bench FILE --save ${safe}\` to write it again.`, { file });
  }
  return b as BenchBaseline;
}
