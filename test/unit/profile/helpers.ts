/**
 * Shared test helpers: fixture locations, the file reader that maps the fixtures' portable
 * file:///hotpath-fixtures/ prefix back to this checkout, and a JSON.parse-based reference extraction
 * to compare the byte scanner against.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCode, HotpathError } from '../../../src/core/common/errors';
import { PADDING, scanProfile, type RawProfile, type ScanOptions } from '../../../src/core/profile/scanner';
import type { FileReader, FunctionInfo, ProfileModel } from '../../../src/core/profile';

export const FIXTURES = path.resolve(__dirname, '../../fixtures/profiles');
export const FIXTURE_SRC = path.join(FIXTURES, 'src');
/** What the recorded profiles use instead of the absolute path of FIXTURE_SRC (see record.js). */
export const PORTABLE_ROOT = '/hotpath-fixtures/';

export const fixture = (name: string) => path.join(FIXTURES, `${name}.cpuprofile`);
export const readFixture = (name: string) => fs.readFileSync(fixture(name), 'utf8');

/** Reads fixture files by their portable path; records what was read. */
export function fixtureReader(): FileReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async readFile(file: string) {
      reads.push(file);
      const real = file.startsWith(PORTABLE_ROOT) ? path.join(FIXTURE_SRC, file.slice(PORTABLE_ROOT.length)) : file;
      return fs.promises.readFile(real, 'utf8');
    },
  };
}

/** A reader where every file is missing, as on a machine that does not have the compiled scripts. */
export const missingReader: FileReader = {
  readFile: async (file) => {
    throw Object.assign(new Error(`ENOENT: no such file, open '${file}'`), { code: 'ENOENT' });
  },
};

/** 1-based line of the fixture source line carrying `marker` (e.g. "@hot-line"). */
export function markerLine(relativeFile: string, marker: string): number {
  const lines = fs.readFileSync(path.join(FIXTURE_SRC, relativeFile), 'utf8').split('\n');
  const index = lines.findIndex((l) => l.includes(marker));
  assert.ok(index >= 0, `marker ${marker} not found in ${relativeFile}`);
  return index + 1;
}

/** 1-based line of the first source line matching `pattern`. */
export function lineMatching(relativeFile: string, pattern: RegExp): number {
  const lines = fs.readFileSync(path.join(FIXTURE_SRC, relativeFile), 'utf8').split('\n');
  const index = lines.findIndex((l) => pattern.test(l));
  assert.ok(index >= 0, `${pattern} not found in ${relativeFile}`);
  return index + 1;
}

export function functionNamed(model: ProfileModel, name: string, urlPart = ''): { index: number; info: FunctionInfo } {
  const index = model.functions.findIndex((f) => f.name === name && f.url.includes(urlPart));
  assert.ok(index >= 0, `function ${name} (${urlPart}) not in the model`);
  return { index, info: model.functions[index] };
}

export function padded(text: string | Uint8Array): { buf: Buffer; length: number } {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text);
  const buf = Buffer.alloc(bytes.length + PADDING);
  bytes.copy(buf);
  return { buf, length: bytes.length };
}

export function scanText(text: string, options: ScanOptions = {}): RawProfile {
  const { buf, length } = padded(text);
  return scanProfile(buf, length, 'test.cpuprofile', options);
}

/** The scanner's columns as plain data, shaped like normalizeParsed's output. */
export function rawToPlain(raw: RawProfile) {
  const s = raw.strings;
  const nodes = [];
  for (let i = 0; i < raw.nodeCount; i++) {
    const children = Array.from(raw.childIds.subarray(raw.childStart[i], raw.childStart[i] + raw.childCount[i]));
    const ticks = [];
    for (let k = raw.tickStart[i]; k < raw.tickStart[i] + raw.tickCountOf[i]; k++) ticks.push({ line: raw.tickLine[k], ticks: raw.tickCount[k] });
    nodes.push({
      id: raw.id[i],
      callFrame: {
        functionName: s[raw.functionName[i]],
        scriptId: s[raw.scriptId[i]],
        url: s[raw.url[i]],
        lineNumber: raw.lineNumber[i],
        columnNumber: raw.columnNumber[i],
      },
      hitCount: raw.hitCount[i],
      children,
      positionTicks: ticks,
      parent: Number.isNaN(raw.parentId[i]) ? undefined : raw.parentId[i],
      deoptReason: raw.deoptReason[i] >= 0 ? s[raw.deoptReason[i]] : undefined,
    });
  }
  return {
    nodes,
    startTime: raw.startTime,
    endTime: raw.endTime,
    samples: Array.from(raw.samples),
    timeDeltas: Array.from(raw.timeDeltas),
  };
}

interface ParsedNode {
  id: number;
  callFrame: { functionName?: string; scriptId?: string | number; url?: string; lineNumber?: number; columnNumber?: number };
  hitCount?: number;
  children?: number[];
  positionTicks?: { line: number; ticks: number }[];
  parent?: number;
  deoptReason?: string | null;
}

/** JSON.parse's view of a profile with the scanner's defaults applied (the reference). */
export function normalizeParsed(parsed: { nodes: ParsedNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }) {
  return {
    nodes: parsed.nodes.map((n) => ({
      id: n.id,
      callFrame: {
        functionName: n.callFrame.functionName ?? '',
        scriptId: n.callFrame.scriptId === undefined ? '' : String(n.callFrame.scriptId),
        url: n.callFrame.url ?? '',
        lineNumber: n.callFrame.lineNumber ?? -1,
        columnNumber: n.callFrame.columnNumber ?? -1,
      },
      hitCount: n.hitCount ?? 0,
      children: n.children ?? [],
      positionTicks: (n.positionTicks ?? []).map((t) => ({ line: t.line, ticks: t.ticks })),
      parent: n.parent,
      deoptReason: typeof n.deoptReason === 'string' && n.deoptReason !== '' ? n.deoptReason : undefined,
    })),
    startTime: parsed.startTime,
    endTime: parsed.endTime,
    // +0 turns -0 into 0: the scanner stores integers in an Int32Array, which has no -0.
    samples: parsed.samples.map((v) => v + 0),
    timeDeltas: parsed.timeDeltas.map((v) => v + 0),
  };
}

export function assertProfileInvalid(fn: () => unknown, ...patterns: RegExp[]): HotpathError {
  let error: unknown;
  try {
    fn();
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof HotpathError, `expected a HotpathError, got ${error instanceof Error ? error.stack : String(error)}`);
  assert.equal(error.code, ErrorCode.ProfileInvalid, error.message);
  for (const p of patterns) assert.match(error.message, p);
  return error;
}

/** Deterministic PRNG for generated inputs (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
