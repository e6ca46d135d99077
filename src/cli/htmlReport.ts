/**
 * The standalone flamegraph report: one self-contained HTML file (the webview bundle and stylesheet
 * inlined, the flame payload embedded as a JSON header plus base64 binary) that opens offline in any
 * browser. `hotpath report --html`, `hotpath profile` (next to the saved profile) and the diff report.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildDiffPayload, buildFlamePayload } from '../core/flame';
import { ErrorCode, errorMessage, HotpathError } from '../core/common/errors';
import { loadProfile, type ProfileModel } from '../core/profile';
import { attachV8 } from '../core/workflow/analyze';
import { encodePayload, type FlamePayload } from '../shared/flame/payload';
import { addV8FlameExtras } from '../core/v8/flameExtras';
import type { V8FunctionSignals } from '../core/v8/types';
import { flameHtml } from '../shared/webviewHtml';
import type { CompareResult } from '../core/workflow/compare';
import { diffSideOf } from '../core/workflow/diffSide';
import { analyzeThreads, loadThreads, threadsFlame } from '../core/workflow/threadsProfile';
import type { Attribution } from '../core/attribution/types';
import { savedAttribution } from '../core/workflow/savedAttribution';

/** Where the built webview bundle and stylesheet are: next to dist/cli.js, or from the sources (tests). */
function asset(relative: string): string {
  const candidates = [path.join(__dirname, '..', relative), path.join(__dirname, '..', '..', relative)];
  for (const c of candidates) if (fs.existsSync(c)) return fs.readFileSync(c, 'utf8');
  throw new Error(`The flamegraph front end (${relative}) is missing: run \`npm run build\`.`);
}

export function renderReportHtml(payload: FlamePayload, options: { bodyClass?: string } = {}): string {
  const { header, binary } = encodePayload(payload);
  return flameHtml({
    nonce: randomBytes(18).toString('base64'),
    title: `Hotpath — ${payload.meta.title}${payload.diff ? ` vs ${payload.diff.before.title}` : ''}`,
    script: { inline: asset('dist/webview.js') },
    style: { inline: asset('media/flame.css') },
    embedded: { headerJson: JSON.stringify(header), base64: Buffer.from(binary.buffer, binary.byteOffset, binary.byteLength).toString('base64') },
    bodyClass: options.bodyClass,
  });
}

async function write(out: string, html: string): Promise<string> {
  const file = path.resolve(out);
  // Write then rename: a reader never sees half a report.
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    await fs.promises.writeFile(tmp, html);
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true }).catch(() => undefined);
    throw new HotpathError(ErrorCode.InvalidOption, `Could not write the flamegraph report to ${file}: ${errorMessage(err)}.`);
  }
  return file;
}

/**
 * Model → HTML file; returns the absolute path. With V8 signals, frames carry their tier and deopt count;
 * with the model's attribution, inlined code is drawn in frames of its own, as the editor places it.
 */
export async function writeFlameReport(model: ProfileModel, out: string, v8Functions?: ReadonlyMap<number, V8FunctionSignals>, decorate?: (payload: FlamePayload) => void, attribution?: Attribution): Promise<string> {
  const payload = buildFlamePayload(model, { attribution });
  if (v8Functions?.size) addV8FlameExtras(payload, v8Functions);
  decorate?.(payload);
  return write(out, renderReportHtml(payload));
}

/**
 * A run with worker threads: every thread in one flamegraph, a frame per thread under the root (no flame
 * chart: the threads ran at the same time), each frame with its isolate's V8 tier, and code V8 inlined
 * drawn as frames of the inlined callee as the editor places it (the merged threads' attribution:
 * workflow/threadsProfile.ts, the editor's own analysis).
 */
export async function writeThreadsFlameReport(profiles: readonly { thread: string; path: string }[], out: string, options: { attribution?: boolean } = {}): Promise<string> {
  const main = path.resolve(profiles[0].path);
  const loaded = await loadThreads(profiles.map((p) => ({ thread: p.thread, path: path.resolve(p.path) })), main);
  const analysed = options.attribution === false ? undefined : await analyzeThreads(loaded, { limit: 1, profilePath: main });
  const v8Functions = analysed?.v8Functions ?? (loaded.raw ? (await attachV8(loaded.model, main, loaded.raw, loaded.sourceMapUrls).catch(() => undefined))?.v8Functions : undefined);
  const { all } = await threadsFlame(loaded, { title: path.basename(main), attribution: analysed?.analysis.attribution, v8Functions });
  return write(out, renderReportHtml(all));
}

/** A prepared payload (e.g. an allocation profile's) → HTML file. */
export async function writePayloadReport(payload: FlamePayload, out: string): Promise<string> {
  return write(out, renderReportHtml(payload));
}

/** Profile file → HTML file, source-mapped like `hotpath report`. */
export async function writeFlameReportFromFile(profile: string, out: string): Promise<string> {
  const model = await loadProfile(path.resolve(profile), { sourceMaps: true, thread: 'main' });
  return writeFlameReport(model, out);
}

/**
 * Differential HTML file: widths from `after` (already loaded), colours by change vs the `before` file.
 * Inlined code is split into frames on both sides alike: `after` by its attribution, the older profile
 * by its own (read with what its run saved beside it).
 */
export async function writeDiffReport(before: { path: string; model?: ProfileModel }, after: ProfileModel, out: string, attribution?: Attribution): Promise<string> {
  const beforePath = path.resolve(before.path);
  const b = before.model ?? await loadProfile(beforePath, { sourceMaps: true, thread: 'main' });
  const beforeAttribution = attribution ? await savedAttribution(b, beforePath) : undefined;
  return write(out, renderReportHtml(buildDiffPayload(b, after, { attribution, beforeAttribution })));
}

/**
 * The differential flamegraph of a comparison: B's frames, A's matching time, both sides named in the
 * header; user files matched relative to each side's project root (a worktree and the working tree).
 */
export async function writeCompareReport(result: CompareResult, out: string): Promise<string> {
  // Every thread of both sides when a side ran worker threads (the header says so), else the main threads.
  const a = diffSideOf(result.profiles!.a);
  const b = diffSideOf(result.profiles!.b);
  const threads = result.diff?.threads;
  const side = (s: CompareResult['sides'][number], labels: string[] | undefined) => ({ label: s.label, nodeVersion: s.nodeVersion, gitRev: s.gitRev, env: s.env, nodeArgs: s.nodeArgs, ...(labels ? { threads: labels } : {}) });
  const payload = buildDiffPayload(a.model, b.model, {
    title: `B: ${result.sides[1].label}`, beforeTitle: `A: ${result.sides[0].label}`, beforeRoot: a.projectRoot, afterRoot: b.projectRoot,
    sides: { before: side(result.sides[0], threads?.a), after: side(result.sides[1], threads?.b) },
    ...(a.attribution && b.attribution ? { attribution: b.attribution, beforeAttribution: a.attribution } : {}),
  });
  if (b.v8Functions?.size) addV8FlameExtras(payload, b.v8Functions);
  return write(out, renderReportHtml(payload));
}

/** `<dir>/<name>.cpuprofile` → `<dir>/<name>.html`. */
export function htmlPathFor(profilePath: string): string {
  return profilePath.replace(/\.cpuprofile$/i, '') + '.html';
}
