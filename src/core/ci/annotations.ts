/**
 * CI annotations of a comparison's verdict: when B is slower, on the lines of B (the head revision: the
 * working tree) whose time grew most — own and total share per line, the base revision's lines carried to
 * the head's numbers through git's diff, paths relative to the repository root — at most 10 (GitHub shows
 * about 10 of each kind per step); when faster, a notice; otherwise one annotation for an inconclusive
 * gate. Rendered as workflow commands by `workflowCommand` (src/shared/text/safe.ts).
 */
import { formatPct, formatSignedPoints } from '../../shared/text/numbers';
import { workflowCommand, type WorkflowCommandName } from '../../shared/text/safe';
import { grownLines, lineChanges, type LineChange, type LineMapper, shrunkLines } from '../profileDiff/lines';
import { ratioPercent } from '../stats/formatComparison';
import { repositoryRoot } from '../variants/git';
import { lineMapSince } from '../variants/lineMap';
import type { CompareResult } from '../workflow/compare';
import type { GateResult } from './policy';

export const MAX_ANNOTATIONS = 10;

export interface Annotation {
  level: WorkflowCommandName;
  /** Relative to the repository root; absent for an annotation of the whole run. */
  file?: string;
  line?: number;
  title: string;
  message: string;
}

/** "req/s −66.0%, p99 +180%": the deciding metrics' changes. */
function changeText(gate: GateResult): string {
  return gate.deciding.map((m) => `${m.label} ${ratioPercent(m.ratio, 1)}`).join(', ');
}

function lineMessage(c: LineChange, gate: GateResult): string {
  const own = `own time ${formatPct(c.ownBefore)} → ${formatPct(c.ownAfter)} of the profile (${formatSignedPoints(c.deltaOwn)})`;
  const total = `with what it calls ${formatPct(c.totalBefore)} → ${formatPct(c.totalAfter)} (${formatSignedPoints(c.deltaTotal)})`;
  const where = c.origin === 'unchanged' ? 'unchanged code' : c.origin === 'changed' ? 'changed in this revision' : 'new in this revision, or its time was not on this line before';
  return `Line ${c.line} (${c.function || '(anonymous)'}, ${where}): ${own}, ${total}.\nHotpath gate: ${gate.outcome} — ${gate.summary}`;
}

/** The per-line changes of a compare run with profiles, in B's line numbers; undefined when not comparable. */
export async function compareLineChanges(r: CompareResult): Promise<LineChange[] | undefined> {
  const a = r.profiles?.a;
  const b = r.profiles?.b;
  if (!a?.lines || !b?.lines || !b.projectRoot) return undefined;
  const [sa, sb] = r.sides;
  let map: LineMapper = (_f, line) => ({ line, changed: false });
  if (sa.gitRev && (sa.gitRev !== sb.gitRev || sb.gitDirty)) {
    const root = await repositoryRoot(sb.cwd);
    if (!root) return undefined;
    map = await lineMapSince(root, sa.gitRev, [...new Set(a.lines.map((l) => l.file))]);
  }
  return lineChanges(a.lines, b.lines, map);
}

/** The annotations of a gated run (`changes`: compare's per-line changes, when it has them). */
export function annotationsFor(gate: GateResult, verdict: string, kind: string, changes: LineChange[] | undefined): Annotation[] {
  const level: WorkflowCommandName = gate.failed ? 'error' : 'warning';
  if (verdict === 'slower') {
    const title = `Hotpath ${kind}: slower (${changeText(gate)})`;
    const grown = changes ? grownLines(changes, MAX_ANNOTATIONS) : [];
    if (grown.length) return grown.map((c) => ({ level, file: c.file, line: c.line, title, message: lineMessage(c, gate) }));
    return [{ level, title, message: `Hotpath gate: ${gate.outcome} — ${gate.summary}${changes ? '\nNo line of the project grew by 0.5 points of the profile or more.' : ''}` }];
  }
  if (gate.outcome === 'inconclusive' || gate.outcome === 'regression') {
    return [{ level, title: `Hotpath ${kind}: ${gate.outcome}`, message: `${gate.summary}${gate.toDecide ? `; ${gate.toDecide}` : ''}` }];
  }
  if (verdict === 'faster') {
    const best = changes ? shrunkLines(changes, 1)[0] : undefined;
    const title = `Hotpath ${kind}: faster (${changeText(gate)})`;
    return [best
      ? { level: 'notice', file: best.file, line: best.line, title, message: `${lineMessage(best, gate)}\nThe line whose time shrank most.` }
      : { level: 'notice', title, message: `Hotpath gate: ${gate.outcome} — ${gate.summary}` }];
  }
  return [];
}

/** Each annotation as one workflow-command line. */
export function workflowCommands(annotations: readonly Annotation[]): string[] {
  return annotations.slice(0, MAX_ANNOTATIONS).map((a) => workflowCommand(a.level, { file: a.file, line: a.line, title: a.title }, a.message));
}
