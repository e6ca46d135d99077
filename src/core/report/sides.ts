/** The sides of a comparison as a report states them: what each ran, and the facts that prove it. */
import type { SideFacts } from '../variants/sides';
import { code, type Inline, line, type Line } from './model';
import { displayFile } from './paths';

/**
 * `A: HEAD~1 (1a2b3c4) — Node 22.23.3`, then its folder (a revision's temporary worktree), the file the
 * command starts, the node binary and where its dependencies came from (compare, startup, bisect).
 */
export function sideLines(name: string, s: SideFacts, indent = 2): Line[] {
  const facts = [
    s.nodeVersion ? `Node ${s.nodeVersion.replace(/^v/, '')}` : '',
    s.gitRev ? `${s.gitRev.slice(0, 10)}${s.gitDirty ? ' + uncommitted changes' : ''}` : '',
    ...Object.entries(s.env).map(([k, v]) => `${k}=${v}`),
    ...s.nodeArgs,
  ].filter((f) => f && !s.label.includes(f));
  const entry: Inline = s.entry ? code(displayFile(s.entry, s.root ?? s.cwd)) : '(the command names no file)';
  return [
    line([`${name}: `, code(s.label), facts.length ? [' — ', code(facts.join(' · '))] : ''], indent),
    line(['in ', code(s.cwd), ' · runs ', entry, s.nodePath ? [' · node ', code(s.nodePath)] : ''], indent + 3),
    line(['dependencies: ', code(s.dependencies)], indent + 3),
  ];
}
