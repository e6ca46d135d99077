/**
 * Profile and app text as an attacker would write it (issue 10): each string tries to break out of one
 * output surface — a notification link that runs a command, a Markdown code span ended by `\r` or a
 * line separator, terminal escapes that write the clipboard (OSC 52), clear the screen, move the
 * cursor over earlier lines or make a link (OSC 8), and bidi overrides that reorder what is read.
 */
export const HOSTILE_NAMES: readonly string[] = [
  'Reveal [in Explorer](command:workbench.action.terminal.sendSequence?{"text":"echo pwned\\n"})',
  'fn\r\r[open](command:hotpath.baselines.open?%5B%22%2Fetc%2Fpasswd%22%5D)',
  'fn\r\n\r\n[open](command:hotpath.baselines.open?["/etc/passwd"])',
  'span\u2028[x](command:hotpath.showFlamegraph)\u2029# heading',
  '``tick`` ``` ` <img src=x onerror=alert(1)>',
  'osc52\u001b]52;c;cHduZWQ=\u0007',
  'clear\u001b[2J\u001b[H',
  'hide\u001b[1A\u001b[2K\rfake line',
  'link\u001b]8;;https://evil.example/\u001b\\click\u001b]8;;\u001b\\',
  'csi8bit\u009b2J',
  'rtl\u202eevil.js',
  '$(sync~spin) icon',
];

/** What none of the single-line surfaces may carry through raw. */
// eslint-disable-next-line no-control-regex
export const RAW_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export interface FrameSpec {
  name: string; url: string; line?: number; samples?: number; children?: FrameSpec[];
  /** V8's line ticks (1-based lines): what makes attribution map lines through a script's source map. */
  positionTicks?: Array<{ line: number; ticks: number }>;
}

/**
 * A small, valid .cpuprofile (V8's layout) with the given frames under (root): each frame gets
 * `samples` samples 1 ms apart. Used to put hostile names and URLs in front of every surface.
 */
export function profileOf(frames: FrameSpec[], options: { intervalUs?: number } = {}): object {
  const interval = options.intervalUs ?? 1000;
  const nodes: object[] = [];
  const samples: number[] = [];
  let nextId = 1;
  const add = (spec: FrameSpec): number => {
    const id = nextId++;
    const node = { id, callFrame: { functionName: spec.name, scriptId: String(id), url: spec.url, lineNumber: (spec.line ?? 1) - 1, columnNumber: 0 }, hitCount: spec.samples ?? 0, children: [] as number[], ...(spec.positionTicks ? { positionTicks: spec.positionTicks } : {}) };
    nodes.push(node);
    for (let i = 0; i < (spec.samples ?? 0); i++) samples.push(id);
    for (const c of spec.children ?? []) node.children.push(add(c));
    return id;
  };
  const root = { id: nextId++, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, hitCount: 0, children: [] as number[] };
  nodes.push(root);
  for (const f of frames) root.children.push(add(f));
  const timeDeltas = samples.map(() => interval);
  return { nodes, startTime: 1_000_000, endTime: 1_000_000 + samples.length * interval, samples, timeDeltas };
}

/**
 * Program text that tries to become a GitHub Actions workflow command in a CI log (issue 22): at a line's
 * start after white space (`::name::`), the older `##[name]` form anywhere in a line, a command hidden
 * after a line break, a resume token, and the runner's own escapes (which must arrive as written).
 */
export const HOSTILE_CI_NAMES: readonly string[] = [
  '::error file=app.js,line=1::injected',
  '  ::add-mask::hotpath',
  'name ##[warning]injected',
  'fn\n::set-output name=verdict::faster',
  'fn\r::stop-commands::pause',
  'a%0A::error::escaped%25 ##[error]',
  '\u0085::notice::next-line',
];
