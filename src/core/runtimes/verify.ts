/**
 * Node binaries in Hotpath's cache are checked before they run. When a binary is installed (after the
 * download matched the registry's sha512, or npm installed it) its SHA-256 is recorded beside it, in
 * `node-<version>/.verified.json`; before each use the binary is compared with that record, and one
 * that differs is refused with a message that says how to get a fresh copy.
 *
 * Cost, measured on the 2-core test machine: hashing the ~120 MB binary takes 0.16–0.23 s when it is
 * quiet and 0.85–1.3 s when it is busy; the check without hashing (a stat and the record) ~0.5 ms. So the
 * binary is re-hashed only when its identity — device, inode, size, modification and change time,
 * in nanoseconds — differs from the last check: editing or replacing the file changes its change time
 * (ctime), which cannot be set back. An entry without a record (installed by an older Hotpath) is
 * hashed and recorded on first use.
 *
 * This detects a binary changed after it was verified (an edit, a corrupted disk, a stray copy); whoever
 * can write the cache can also write the record, so it is no defence against someone who knows of it.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCode, HotpathError } from '../common/errors';
import { completeStamp } from './cache';
import type { NodeRuntime } from './types';

const RECORD_FILE = '.verified.json';

interface Identity { dev: string; ino: string; size: string; mtimeNs: string; ctimeNs: string }

interface VerifiedRecord {
  /** The binary, relative to the version's folder. */
  binary: string;
  sha256: string;
  /** The file as it was when last found to have that hash. */
  checked: Identity;
}

function identity(file: string): Identity {
  const st = fs.statSync(file, { bigint: true });
  return { dev: String(st.dev), ino: String(st.ino), size: String(st.size), mtimeNs: String(st.mtimeNs), ctimeNs: String(st.ctimeNs) };
}

const sameIdentity = (a: Identity, b: Identity) => a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;

/** Streams the file through SHA-256 (no 120 MB buffer). */
export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    fs.createReadStream(file, { highWaterMark: 1 << 20 }).on('error', reject).on('data', (d) => hash.update(d)).on('end', () => resolve(hash.digest('hex')));
  });
}

/**
 * The cache folder (`<cache>/node-<version>`) of a binary laid out as Hotpath's cache lays it out
 * (`node_modules/node-<os>-<arch>/bin/node`) with a completed install's stamp; undefined otherwise.
 */
export function cacheEntryOf(file: string): { dir: string; version: string } | undefined {
  let binary = file;
  try { binary = fs.realpathSync(file); } catch { /* judge the path as given */ }
  const dir = path.resolve(binary, '..', '..', '..', '..');
  const version = /^node-(\d+\.\d+\.\d+)$/.exec(path.basename(dir))?.[1];
  const rel = path.relative(dir, binary).split(path.sep);
  if (!version || rel.length !== 4 || rel[0] !== 'node_modules' || !/^node-(linux|darwin|win)-(x64|arm64)$/.test(rel[1]) || rel[2] !== 'bin') return undefined;
  return fs.existsSync(completeStamp(path.dirname(dir), version)) ? { dir, version } : undefined;
}

function readRecord(dir: string): VerifiedRecord | undefined {
  try {
    const r = JSON.parse(fs.readFileSync(path.join(dir, RECORD_FILE), 'utf8')) as VerifiedRecord;
    return typeof r.sha256 === 'string' && typeof r.binary === 'string' && r.checked ? r : undefined;
  } catch {
    return undefined;
  }
}

function writeRecord(dir: string, record: VerifiedRecord): void {
  const tmp = path.join(dir, `${RECORD_FILE}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, JSON.stringify(record, null, 1));
  fs.renameSync(tmp, path.join(dir, RECORD_FILE));
}

/** Records a binary just installed into `dir` as verified. */
export async function recordInstalled(dir: string, binary: string): Promise<void> {
  const checked = identity(binary);
  writeRecord(dir, { binary: path.relative(dir, binary), sha256: await sha256File(binary), checked });
}

/**
 * The runtime as given, after checking it against its record when it is a binary of Hotpath's cache
 * (found there, or named by its path); a binary that changed since it was verified is refused.
 */
export async function verifyIfCached(runtime: NodeRuntime, hash: (file: string) => Promise<string> = sha256File): Promise<NodeRuntime> {
  const entry = cacheEntryOf(runtime.path);
  if (!entry) return runtime;
  const rel = path.relative(entry.dir, runtime.path);
  const record = readRecord(entry.dir);
  const now = identity(runtime.path);
  if (record && record.binary === rel && sameIdentity(record.checked, now)) return runtime;
  const sha256 = await hash(runtime.path);
  if (record && record.binary === rel && record.sha256 !== sha256) {
    throw new HotpathError(ErrorCode.LoadFailed,
      `Node ${entry.version} in Hotpath's cache (${runtime.path}) has changed since it was installed and verified: its SHA-256 is now ${sha256.slice(0, 16)}…, it was ${record.sha256.slice(0, 16)}…. Hotpath did not run it. Delete ${entry.dir} to have Hotpath download it again (checked against the registry's sha512), or pass the path of another node binary to --node.`);
  }
  // Unchanged content with a new identity (copied, touched), or no record yet: (re)record it.
  writeRecord(entry.dir, { binary: rel, sha256, checked: now });
  return runtime;
}
