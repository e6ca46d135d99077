/**
 * @datadog/pprof with `lineNumbers: true` records where each frame was (its sampled line, or the line of
 * its call) but not where its function starts, so a hot function would get no CodeLens. The workspace's
 * source says it: the function of that name whose extent holds every line the profile saw in it. Taken
 * only when exactly one function qualifies (the innermost, when they nest); otherwise the function keeps
 * no declaration line, and no CodeLens is placed on a guess.
 */
import { lastSegment } from '../attribution/context';
import { diskSources, type SourceProvider } from '../attribution/sources';
import type { ProfileModel } from '../profile/types';

export async function findStartLines(model: ProfileModel, sources: SourceProvider = diskSources()): Promise<number> {
  const { functions, lines, nodes } = model;
  const observed = new Map<number, { min: number; max: number }>();
  const see = (f: number, line: number) => {
    const info = functions[f];
    if (line <= 0 || info.line !== null || info.category !== 'user' || !info.name) return;
    const o = observed.get(f);
    if (!o) observed.set(f, { min: line, max: line });
    else { o.min = Math.min(o.min, line); o.max = Math.max(o.max, line); }
  };
  for (let e = 0; e < lines.count; e++) see(lines.func[e], lines.line[e]);
  const callLine = nodes.callLine;
  if (callLine) for (let v = 0; v < model.nodeCount; v++) if (nodes.parent[v] >= 0) see(nodes.func[nodes.parent[v]], callLine[v]);
  let found = 0;
  for (const [f, range] of observed) {
    const info = functions[f];
    const file = await sources.file(info.file).catch(() => undefined);
    if (!file) continue;
    const holding = file.definitionsOf(lastSegment(info.name)).filter((fn) => fn.parent !== -1 && fn.startLine <= range.min && fn.endLine >= range.max);
    // Nested same-named functions both hold the lines: the innermost is the one that ran.
    const inner = holding.filter((fn) => !holding.some((other) => other !== fn && other.start >= fn.start && other.end <= fn.end));
    if (inner.length !== 1) continue;
    info.line = inner[0].anchor.line;
    info.column = inner[0].anchor.column + 1;
    found++;
  }
  return found;
}
