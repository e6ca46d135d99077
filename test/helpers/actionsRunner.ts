/**
 * How the GitHub Actions runner reads a step's output for workflow commands (actions/runner,
 * src/Runner.Common/ActionCommand.cs and src/Runner.Worker/ActionCommandManager.cs), for tests: each line
 * (split as .NET's ReadLine splits: \r\n, \r, \n) is tried as `::name props::data` after trimming leading
 * white space, then as the older `##[name props]data` anywhere in the line; only registered command names
 * count; `stop-commands` pauses processing until its token comes back.
 */
export interface ParsedCommand { command: string; properties: Record<string, string>; data: string; line: string }

/** The commands the runner registers (its command extensions and stop-commands). */
const REGISTERED = new Set(['stop-commands', 'set-env', 'set-output', 'save-state', 'add-mask', 'add-path', 'add-matcher', 'remove-matcher', 'warning', 'error', 'notice', 'debug', 'group', 'endgroup', 'echo', 'internal-set-repo-path']);

const unescapeData = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
const unescapeProperty = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
const unescapeV1 = (s: string) => s.replace(/%3B/g, ';').replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%5D/g, ']').replace(/%25/g, '%');

function parseV2(line: string, registered: Set<string>): ParsedCommand | undefined {
  const m = line.replace(/^[\s\u0085]+/, '');
  if (!m.startsWith('::')) return undefined;
  const end = m.indexOf('::', 2);
  if (end < 0) return undefined;
  const info = m.slice(2, end);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  if (!registered.has(command.toLowerCase())) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const p of info.slice(space + 1).trim().split(',').filter(Boolean)) {
      const eq = p.indexOf('=');
      if (eq > 0 && eq < p.length - 1) properties[p.slice(0, eq)] = unescapeProperty(p.slice(eq + 1));
    }
  }
  return { command: command.toLowerCase(), properties, data: unescapeData(m.slice(end + 2)), line };
}

function parseV1(line: string, registered: Set<string>): ParsedCommand | undefined {
  const start = line.indexOf('##[');
  if (start < 0) return undefined;
  const rb = line.indexOf(']', start);
  if (rb < 0) return undefined;
  const info = line.slice(start + 3, rb);
  const space = info.indexOf(' ');
  const command = space < 0 ? info : info.slice(0, space);
  if (!registered.has(command.toLowerCase())) return undefined;
  const properties: Record<string, string> = {};
  if (space > 0) {
    for (const p of info.slice(space + 1).split(';').filter(Boolean)) {
      const eq = p.indexOf('=');
      if (eq > 0 && eq < p.length - 1) properties[p.slice(0, eq)] = unescapeV1(p.slice(eq + 1));
    }
  }
  return { command: command.toLowerCase(), properties, data: unescapeV1(line.slice(rb + 1)), line };
}

/** The commands the runner would process in `output` (one stream), in order. */
export function workflowCommandsIn(output: string): ParsedCommand[] {
  const registered = new Set(REGISTERED);
  const out: ParsedCommand[] = [];
  let stopToken: string | undefined;
  for (const line of output.split(/\r\n|\r|\n/)) {
    if (!line) continue;
    const c = parseV2(line, registered) ?? parseV1(line, registered);
    if (!c) continue;
    if (stopToken !== undefined) {
      if (c.command === stopToken.toLowerCase()) { registered.delete(stopToken.toLowerCase()); stopToken = undefined; }
      continue;
    }
    if (c.command === 'stop-commands') { stopToken = c.data; registered.add(c.data.toLowerCase()); }
    out.push(c);
  }
  return out;
}
