/**
 * What the editor paints on a `require`/`import` line after `hotpath startup`: the time loading that
 * line's modules adds to every start, `+38 ms (12 modules)`. Editor-neutral and pure; a label is only
 * valid on a line that still asks for the module (the caller checks the text).
 */
import { formatInt, formatMs } from '../../shared/text/numbers';
import type { ModuleRow } from './moduleTree';

export interface ModuleLineLabel {
  /** 1-based. */
  line: number;
  totalMs: number;
  /** Modules loaded because of this line (their subtrees included). */
  modules: number;
  /** What the line asks for (`express`, `./lib/rules`), to check the line still does. */
  requests: string[];
  /** Own time of the modules themselves (not their dependencies). */
  selfMs: number;
  /** Measured in the process (CommonJS) or read from the profile (ES modules). */
  sampled: boolean;
}

/** Per file (absolute path), its require/import lines with what they cost, largest first. */
export function moduleLineLabels(modules: readonly ModuleRow[]): Map<string, ModuleLineLabel[]> {
  const out = new Map<string, Map<number, ModuleLineLabel>>();
  for (const m of modules) {
    const from = m.requiredFrom;
    if (!from || from.line === null || m.totalMs <= 0) continue;
    const byLine = out.get(from.file) ?? new Map<number, ModuleLineLabel>();
    const l = byLine.get(from.line) ?? { line: from.line, totalMs: 0, modules: 0, requests: [], selfMs: 0, sampled: false };
    l.totalMs += m.totalMs;
    l.modules += m.modules;
    l.selfMs += m.selfMs;
    l.sampled ||= m.timing === 'sampled';
    if (!l.requests.includes(m.module)) l.requests.push(m.module);
    byLine.set(from.line, l);
    out.set(from.file, byLine);
  }
  return new Map([...out].map(([file, lines]) => [file, [...lines.values()].sort((a, b) => b.totalMs - a.totalMs)]));
}

/** `+38.2 ms (12 modules)` */
export function moduleLabelText(l: ModuleLineLabel): string {
  return `+${formatMs(l.totalMs)} (${formatInt(l.modules)} module${l.modules === 1 ? '' : 's'})`;
}

/** Whether a line (as it is now) still asks for one of the modules the label is about. */
export function lineStillLoads(text: string, l: Pick<ModuleLineLabel, 'requests'>): boolean {
  return l.requests.some((r) => text.includes(`'${r}'`) || text.includes(`"${r}"`) || text.includes(`\`${r}\``));
}
