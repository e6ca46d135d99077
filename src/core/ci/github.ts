/**
 * GitHub Actions, as a step sees it: detected by `GITHUB_ACTIONS=true`; the job summary is Markdown
 * appended to the file `$GITHUB_STEP_SUMMARY` names (GitHub shows at most 1 MiB per step), outputs are
 * `name=value` entries appended to `$GITHUB_OUTPUT`, annotations are workflow commands on stdout.
 */
import * as fs from 'node:fs';
import { githubFileEntry } from '../../shared/text/safe';

export interface GithubEnvironment {
  summaryPath?: string;
  outputPath?: string;
  /** The checkout (annotations' paths are relative to the repository root, which this usually is). */
  workspace?: string;
}

/** The Actions environment when running in one (`GITHUB_ACTIONS=true`), else undefined. */
export function githubEnvironment(env: NodeJS.ProcessEnv = process.env): GithubEnvironment | undefined {
  if (env.GITHUB_ACTIONS !== 'true') return undefined;
  const path = (v: string | undefined) => (v && v.trim() ? v : undefined);
  return { summaryPath: path(env.GITHUB_STEP_SUMMARY), outputPath: path(env.GITHUB_OUTPUT), workspace: path(env.GITHUB_WORKSPACE) };
}

/** GitHub's limit on one step's job summary. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

/**
 * Markdown that fits in `room` bytes: as it is, else the shorter rendering `shorter()` gives, else cut at
 * a line boundary with a note saying where the whole report is.
 */
export function fitSummary(markdown: string, room: number, shorter: () => string, whole: string): string {
  const size = (s: string) => Buffer.byteLength(s, 'utf8');
  if (size(markdown) <= room) return markdown;
  const short = shorter();
  if (size(short) <= room) return short;
  const note = `\n\n_(Cut to fit GitHub's 1 MiB job-summary limit; ${whole}.)_\n`;
  const budget = Math.max(0, room - size(note));
  const lines = short.split('\n');
  const kept: string[] = [];
  let used = 0;
  for (const l of lines) {
    const n = size(l) + 1;
    if (used + n > budget) break;
    kept.push(l);
    used += n;
  }
  // An unclosed code fence would swallow the note: close it.
  const fences = kept.filter((l) => /^\s*```/.test(l)).length;
  return `${kept.join('\n')}${fences % 2 ? '\n```' : ''}${note}`;
}

/** Appends the summary to `$GITHUB_STEP_SUMMARY`, within what is left of the step's 1 MiB. */
export function appendSummary(file: string, render: { full: string; short: () => string; whole: string }): void {
  let used = 0;
  try { used = fs.statSync(file).size; } catch { /* a new file */ }
  const room = SUMMARY_LIMIT_BYTES - used - 2;
  const text = fitSummary(render.full, Math.max(0, room), render.short, render.whole);
  fs.appendFileSync(file, `${used > 0 ? '\n' : ''}${text}${text.endsWith('\n') ? '' : '\n'}`);
}

/** Appends outputs to `$GITHUB_OUTPUT` (names checked, values that cannot end their entry early). */
export function appendOutputs(file: string, outputs: ReadonlyArray<[string, string]>): void {
  fs.appendFileSync(file, outputs.map(([k, v]) => githubFileEntry(k, v)).join(''));
}
