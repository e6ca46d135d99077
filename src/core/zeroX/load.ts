/**
 * 0x captures (npm `0x`): its output folder (`<pid>.0x/`, or `-D DIR`) holds V8's tick log and the same
 * log preprocessed by `node --prof-process --preprocess` (`isolate-…-v8.log.json` in 0x 6, `…-v8.json`
 * in its docs): `code[]` (JS functions named `name file:line:col`, C++ symbols, shared libraries, V8
 * builtins), and `ticks[]`, each a time (`tm`, µs), a VM state and a stack of code indices (leaf first).
 * That becomes the profile model like any other: function level only (V8's tick log has no line
 * positions), native frames where V8 resolved them (C++ symbols need `nm`; an unresolved leaf's time stays with
 * the function that was running, as 0x draws it), GC and idle ticks as V8's pseudo-frames. 0x's `--write-ticks` file
 * (`ticks.json`: stacks without times) opens too, at V8's default 1 ms per tick.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CancellationToken } from '../common/cancellation';
import { ErrorCode, HotpathError } from '../common/errors';
import type { Warning } from '../common/warnings';
import { childListsFromParents } from '../profile/childLists';
import { modelFromRaw } from '../profile/model';
import { mapPaths, type PathMapOptions } from '../profile/pathMap';
import { profileNotFound } from '../profile/errors';
import { readPadded } from '../profile/read';
import type { RawProfile } from '../profile/scanner';
import type { ProfileModel } from '../profile/types';

interface ZeroXCode { name?: string; type?: string; kind?: string }
interface ZeroXTick { tm?: number; vm?: number; s?: number[] }
/** `--prof-process --preprocess` output. */
export interface PreprocessedLog { code: ZeroXCode[]; ticks: ZeroXTick[] }
/** 0x's `--write-ticks` file: stacks root first, no times. */
type TickStacks = ZeroXCode[][];

const HINT = 'Open a 0x output folder, or the `isolate-…-v8.log.json` (or `ticks.json`) inside it.';

function invalid(source: string, what: string): HotpathError {
  return new HotpathError(ErrorCode.ProfileInvalid, `${source} is not a usable 0x capture: ${what}. ${HINT}`, { file: source });
}

/** V8's --prof default interval: a tick without a time stands for this much. */
const DEFAULT_TICK_US = 1000;
/** VM states (v8-unwinder.h StateTag): GC and IDLE become V8's pseudo-frames, as in a .cpuprofile. */
const VM_GC = 1;
const VM_IDLE = 8;

/** A preprocessed tick log or a `--write-ticks` file, by its first bytes (without parsing all of it). */
export function isZeroXJson(buf: Uint8Array, length: number): boolean {
  const head = Buffer.from(buf.subarray(0, Math.min(length, 256))).toString('utf8').replace(/\s+/g, '');
  return head.startsWith('{"code":[') || head.startsWith('[[{"name":');
}

/** The preprocessed log (or ticks file) in a 0x folder: the largest one when several processes were captured. */
export async function readZeroXFolder(dir: string, token?: CancellationToken): Promise<{ json: unknown; meta?: { title?: string }; file: string }> {
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch (err) {
    throw new HotpathError(ErrorCode.ProfileNotFound, `Cannot open profile ${dir}: ${(err as Error).message}.`, { file: dir });
  }
  const logs = entries.filter((e) => /^isolate-.*\.json$/.test(e));
  const candidates = logs.length ? logs : entries.filter((e) => e === 'ticks.json');
  if (!candidates.length) {
    if (entries.some((e) => /^isolate-.*\.log$/.test(e))) {
      throw invalid(dir, 'it holds V8\'s raw tick log but not its preprocessed JSON (0x writes it when the process exits; run `0x --visualize-only` on the folder, or `node --prof-process --preprocess isolate-….log > isolate-….json`)');
    }
    throw profileNotFound(dir, 'it is a directory, not a file (nor a 0x output folder: it holds no isolate-…json tick log)');
  }
  const sized = candidates.map((e) => ({ file: path.join(dir, e), size: statSize(path.join(dir, e)) })).sort((a, b) => b.size - a.size);
  const file = sized[0].file;
  const { buf, length } = await readPadded(file, token);
  let json: unknown;
  try {
    json = JSON.parse(buf.toString('utf8', 0, length));
  } catch (err) {
    throw invalid(file, `it is not valid JSON (${(err as Error).message})`);
  }
  let meta: { title?: string } | undefined;
  const metaFile = path.join(dir, 'meta.json');
  if (entries.includes('meta.json') && statSize(metaFile) < 1 << 20) {
    try { meta = JSON.parse((await readPadded(metaFile, token)).buf.toString('utf8', 0, statSize(metaFile))); } catch { /* optional */ }
  }
  return { json, meta, file };
}

function statSize(file: string): number {
  try { return fs.statSync(file).size; } catch { return 0; }
}

/** `name file:line:col` (V8's JS code names; an anonymous function's name is empty: a leading space). */
function parseJsName(text: string): { name: string; file: string; line: number; column: number } | null {
  const m = /^(.*?) ?((?:[a-zA-Z][\w+.-]*:|\/|[A-Za-z]:\\|\.{0,2}\/)?[^ ]*?):(\d+):(\d+)$/.exec(text);
  if (!m) return null;
  return { name: m[1].trim(), file: m[2], line: Number(m[3]), column: Number(m[4]) };
}

interface Frame { name: string; url: string; line: number; column: number }

export async function zeroXModel(json: unknown, options: { source: string; thread?: string; pathMap?: PathMapOptions; meta?: { title?: string } }): Promise<ProfileModel> {
  const source = options.source;
  const warnings: Warning[] = [];
  let stacks: { frames: number[]; us: number }[] = [];
  const frameIds = new Map<string, number>();
  const frameList: Frame[] = [];
  const frameOf = (f: Frame) => {
    const k = `${f.name}\n${f.url}\n${f.line}\n${f.column}`;
    let id = frameIds.get(k);
    if (id === undefined) {
      id = frameList.length;
      frameIds.set(k, id);
      frameList.push(f);
    }
    return id;
  };
  const codeFrame = (c: ZeroXCode | undefined): number => {
    if (!c || typeof c.name !== 'string') return -1;
    if (c.type === 'JS') {
      const js = parseJsName(c.name);
      if (js) return frameOf({ name: js.name, url: js.file, line: js.line - 1, column: js.column - 1 });
    }
    // C++ symbols, shared libraries, builtins and stubs: native code, named as V8 named it.
    const suffix = c.type && c.type !== 'JS' && c.type !== 'CODE' ? ` [${c.type}]` : '';
    return frameOf({ name: `${c.name}${suffix}`, url: '', line: -1, column: -1 });
  };
  const pseudo = (name: string) => frameOf({ name, url: '', line: -1, column: -1 });

  if (Array.isArray(json)) {
    // --write-ticks: root-first stacks of code objects.
    const ticks = json as TickStacks;
    for (const t of ticks) {
      if (!Array.isArray(t)) continue;
      const frames = t.map((c) => codeFrame(c)).filter((f) => f >= 0);
      stacks.push({ frames: frames.length ? frames : [pseudo('(program)')], us: DEFAULT_TICK_US });
    }
    warnings.push({ code: 'ZEROX_NO_TIMES', message: `${source} is 0x's ticks file, which records no times: each tick counts as V8's default 1 ms interval.` });
  } else if (json && typeof json === 'object' && Array.isArray((json as PreprocessedLog).code) && Array.isArray((json as PreprocessedLog).ticks)) {
    const { code, ticks } = json as PreprocessedLog;
    const codeFrames = new Int32Array(code.length).fill(-2);
    const frameOfCode = (i: number) => {
      if (!(i >= 0 && i < code.length)) return -1;
      if (codeFrames[i] === -2) codeFrames[i] = codeFrame(code[i]);
      return codeFrames[i];
    };
    const times: number[] = [];
    let unresolved = 0;
    for (const t of ticks) {
      const s = Array.isArray(t?.s) ? t.s : [];
      const frames: number[] = [];
      for (let i = s.length - 2; i >= 0; i -= 2) {
        const f = frameOfCode(s[i]);
        if (f >= 0) frames.push(f);
        else if (i === 0 && frames.length) unresolved++;
      }
      if (t?.vm === VM_GC) stacks.push({ frames: [pseudo('(garbage collector)')], us: 0 });
      else if (!frames.length) stacks.push({ frames: [pseudo(t?.vm === VM_IDLE ? '(idle)' : '(program)')], us: 0 });
      else stacks.push({ frames, us: 0 });
      times.push(typeof t?.tm === 'number' && Number.isFinite(t.tm) ? t.tm : NaN);
    }
    // A tick lasts until the next one (as a .cpuprofile sample); the last one a median interval.
    const gaps: number[] = [];
    for (let i = 1; i < times.length; i++) if (times[i] > times[i - 1]) gaps.push(times[i] - times[i - 1]);
    gaps.sort((a, b) => a - b);
    const median = gaps.length ? gaps[gaps.length >> 1] : DEFAULT_TICK_US;
    for (let i = 0; i < stacks.length; i++) {
      const gap = times[i + 1] - times[i];
      stacks[i].us = i + 1 < stacks.length && gap > 0 && gap < median * 100 ? gap : median;
    }
    if (unresolved) warnings.push({ code: 'ZEROX_UNRESOLVED_CODE', message: `${unresolved} of ${ticks.length} ticks stopped in code V8's tick processor could not name (native code without symbols, or code gone by the end of the log); their time is the self time of the function that was running, as 0x shows it.` });
  } else {
    throw invalid(source, 'it has neither a preprocessed tick log ({"code": […], "ticks": […]}) nor a list of tick stacks');
  }
  stacks = stacks.filter((s) => s.us > 0);
  if (!stacks.length) throw invalid(source, 'it holds no ticks');

  // Paths another machine recorded, mapped to the workspace like a pprof profile's.
  const { map, report } = await mapPaths(frameList.map((f) => f.url), options.pathMap ?? { roots: [process.cwd()] });
  if (report.notFoundCount) {
    warnings.push({ code: 'PATHS_NOT_FOUND', message: `${report.notFoundCount} of the ${report.files} files this capture names were not found in the workspace: ${report.notFound.slice(0, 3).map((n) => `${n.file} (${n.reason})`).join('; ')}${report.notFoundCount > 3 ? '; …' : ''}. Map them with --map-path FROM=TO.` });
  }
  const model = modelFromRaw(buildRaw(frameList.map((f) => ({ ...f, url: map.get(f.url) ?? f.url })), stacks), source, options.thread, { absurdUs: Infinity });
  model.origin = { format: '0x', producer: '0x', unit: 'us', granularity: 'functions', paths: report, skipped: [] };
  model.warnings.push(...warnings);
  return model;
}

/** Stacks (root first, frame ids) → the raw columns of a .cpuprofile with one node per function per path. */
function buildRaw(frames: Frame[], stacks: { frames: number[]; us: number }[]): RawProfile {
  const strings: string[] = [];
  const ids = new Map<string, number>();
  const str = (s: string) => {
    let id = ids.get(s);
    if (id === undefined) { id = strings.length; strings.push(s); ids.set(s, id); }
    return id;
  };
  const parent: number[] = [-1];
  const frameOfNode: number[] = [-1];
  const children = new Map<string, number>();
  const sampleNodes: number[] = [];
  for (const s of stacks) {
    let node = 0;
    for (const f of s.frames) {
      const key = `${node}:${f}`;
      let child = children.get(key);
      if (child === undefined) {
        child = parent.length;
        parent.push(node);
        frameOfNode.push(f);
        children.set(key, child);
      }
      node = child;
    }
    sampleNodes.push(node);
  }
  const n = parent.length;
  const col = (get: (v: number) => number) => Int32Array.from({ length: n }, (_, v) => get(v));
  const frame = (v: number) => (v === 0 ? { name: '(root)', url: '', line: -1, column: -1 } : frames[frameOfNode[v]]);
  const { childCount, childStart, childIds } = childListsFromParents(parent, n);
  const S = stacks.length;
  const timeDeltas = new Float64Array(S);
  let total = 0;
  for (let i = 0; i < S; i++) {
    timeDeltas[i] = i === 0 ? 0 : stacks[i - 1].us;
    total += stacks[i].us;
  }
  return {
    nodeCount: n, id: col((v) => v + 1),
    functionName: col((v) => str(frame(v).name)), url: col((v) => str(frame(v).url)), scriptId: col((v) => str(String(str(frame(v).url)))),
    lineNumber: col((v) => frame(v).line), columnNumber: col((v) => frame(v).column),
    hitCount: new Int32Array(n), parentId: new Float64Array(n).fill(NaN), deoptReason: new Int32Array(n).fill(-1),
    childStart, childCount, childIds,
    tickStart: new Int32Array(n), tickCountOf: new Int32Array(n), tickLine: new Int32Array(0), tickCount: new Int32Array(0),
    strings, startTime: 0, endTime: total, samples: Int32Array.from(sampleNodes, (v) => v + 1), timeDeltas, vscode: null,
  };
}
