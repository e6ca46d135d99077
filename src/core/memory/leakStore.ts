/**
 * The last leak check of each target, one JSON file each in `<workspace>/.hotpath/leaks`, so the next
 * check (after a fix) can say "stable now; was +3.1 KB/request". Written atomically (temporary file,
 * then rename); a missing or unreadable record is simply "no previous check".
 */
import { randomBytes } from 'node:crypto';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { sanitizeBaselineName } from '../stats/baselineName';
import type { Rung } from './growth';

export interface LeakRecord {
  version: 1;
  createdAt: string;
  verdict: 'growing' | 'stable';
  bytesPerRequest: number;
  ciLow: number;
  ciHigh: number;
  rungs: Rung[];
  sites: { function: string; file: string; line: number | null; retainedBytes: number; retainedBytesPerRequest: number }[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A stored record, or undefined when the value is not one (hand-edited, another version). */
export function asLeakRecord(value: unknown): LeakRecord | undefined {
  if (!isRecord(value) || value.version !== 1) return undefined;
  if (value.verdict !== 'growing' && value.verdict !== 'stable') return undefined;
  if (![value.bytesPerRequest, value.ciLow, value.ciHigh].every((x) => typeof x === 'number')) return undefined;
  if (typeof value.createdAt !== 'string' || !Array.isArray(value.rungs) || !Array.isArray(value.sites)) return undefined;
  return value as unknown as LeakRecord;
}

export class LeakStore {
  constructor(readonly dir: string) {}

  fileFor(name: string): string {
    return path.join(this.dir, `${sanitizeBaselineName(name)}.json`);
  }

  async load(name: string): Promise<LeakRecord | undefined> {
    try {
      return asLeakRecord(JSON.parse(await fsp.readFile(this.fileFor(name), 'utf8')));
    } catch {
      return undefined;
    }
  }

  async save(name: string, record: LeakRecord): Promise<string> {
    const file = this.fileFor(name);
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    await fsp.mkdir(this.dir, { recursive: true });
    try {
      await fsp.writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`, 'utf8');
      await fsp.rename(tmp, file);
    } catch (err) {
      await fsp.unlink(tmp).catch(() => undefined);
      throw err;
    }
    return file;
  }
}
