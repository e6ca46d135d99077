/**
 * How the Node producers name frames, undone so a production profile's functions look like a local
 * .cpuprofile's (and diff against them by identity):
 * - @datadog/pprof (also inside dd-trace and the Pyroscope SDK) names anonymous functions
 *   `(anonymous:L#<line>:C#<col>)` after their position, `(garbage collector)` "Garbage Collection" under a
 *   synthetic "Node.js" root, and adds "Non JS threads activity" (CPU time of other threads).
 * - The Pyroscope SDK renames every function `<path, cwd made '.'>:<name>:<line>` before upload
 *   (`processProfile`), the line being the one of the location (the function's start line: it never asks for
 *   line numbers).
 * - google/pprof-nodejs and Hotpath's own export keep V8's names.
 */
import type { Category } from '../profile/types';

export interface FrameName {
  /** V8's spelling: '' for an anonymous function (outputs show "(anonymous)"). */
  name: string;
  /** 1-based line/column the name itself carries (Datadog's anonymous names, Pyroscope's suffix); 0 when none. */
  nameLine: number;
  nameColumn: number;
  /** A pseudo-frame's category when the producer spells it its own way. */
  category?: Category;
  /** The frame is a producer's grouping node with no time of its own (Datadog's "Node.js" root): left out. */
  synthetic?: boolean;
}

const ANONYMOUS = /^\(anonymous(?::L#(\d+)(?::C#(\d+))?)?\)$/;
const TRAILING_LINE = /:(\d+)$/;

/** The categories V8's pseudo-frames get under the names the producers give them (filename ''). */
const PSEUDO: Record<string, { name: string; category: Category }> = {
  'Garbage Collection': { name: '(garbage collector)', category: 'gc' },
  '(garbage collector)': { name: '(garbage collector)', category: 'gc' },
  '(program)': { name: '(program)', category: 'program' },
  '(idle)': { name: '(idle)', category: 'idle' },
  'Non JS threads activity': { name: 'Non JS threads activity', category: 'program' },
};

/** Node packages' spelling of a file in a Pyroscope name: the path, cwd → '.', or the path inside its package. */
function isDisplayOf(prefix: string, filename: string): boolean {
  if (prefix === filename) return true;
  if (prefix.startsWith('.') && prefix.length > 1 && filename.endsWith(prefix.slice(1))) return true;
  // `shortenPaths`: the path relative to the innermost node_modules folder.
  const nm = Math.max(filename.lastIndexOf('node_modules/'), filename.lastIndexOf('node_modules\\'));
  return nm >= 0 && filename.slice(nm + 'node_modules/'.length) === prefix;
}

/** `<file>:<name>:<line>` as the Pyroscope SDK writes it, or null. */
export function pyroscopeName(raw: string, filename: string): { name: string; line: number } | null {
  const m = TRAILING_LINE.exec(raw);
  if (!m) return null;
  const rest = raw.slice(0, m.index);
  if (filename === '') return rest.startsWith(':') ? { name: rest.slice(1), line: Number(m[1]) } : null;
  // The file part may itself hold colons (Windows drives, `node:` urls): try every split, shortest file first.
  for (let i = rest.indexOf(':'); i >= 0; i = rest.indexOf(':', i + 1)) {
    if (isDisplayOf(rest.slice(0, i), filename)) return { name: rest.slice(i + 1), line: Number(m[1]) };
  }
  return null;
}

export function frameName(raw: string, filename: string, stackRoot: boolean): FrameName {
  let name = raw;
  let nameLine = 0;
  let nameColumn = 0;
  const pyro = pyroscopeName(raw, filename);
  if (pyro) {
    name = pyro.name;
    nameLine = pyro.line;
  }
  if (filename === '') {
    const pseudo = PSEUDO[name];
    if (pseudo) return { name: pseudo.name, nameLine: 0, nameColumn: 0, category: pseudo.category };
    if (name === 'Node.js' && stackRoot) return { name, nameLine: 0, nameColumn: 0, synthetic: true };
  }
  const anon = ANONYMOUS.exec(name);
  if (anon) {
    name = '';
    if (anon[1]) nameLine = Number(anon[1]);
    if (anon[2]) nameColumn = Number(anon[2]);
  }
  return { name, nameLine, nameColumn };
}
