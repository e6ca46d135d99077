/**
 * Untrusted text → safe text, one function per output surface. Function names, URLs, file names and the
 * app's own output come from the profiled program, so any of them may be crafted. Every place that puts
 * such text on a surface goes through the surface's function here:
 *
 * - Markdown (hovers, tooltips, trusted or not): `mdEscape` for prose, `mdCode` for a code span;
 * - VS Code notifications (they turn `[label](command:…)` into a clickable link): `notificationText`;
 * - the terminal and the Debug Console (escape sequences can write the clipboard, clear or hide lines):
 *   `terminalText`, and `terminalJson` for `--json` documents;
 * - log lines (one record per line): `logText`;
 * - single-line labels (status bar, CodeLens, after-line decorations, tree items, quick picks): `labelText`;
 * - answers to agents (MCP and VS Code language-model tools, `--md`): `agentCode` for a code span,
 *   `agentBlock` for several lines of app output, `agentText` for JSON: program text is data, capped;
 * - GitHub Actions (CI gates): `workflowCommand` builds an annotation (`::error file=…,line=…::…`) with its
 *   data and properties escaped as the runner unescapes them, `workflowLogText` keeps every other line
 *   Hotpath prints in an Actions log from being read as a command, `githubFileEntry` writes one
 *   `$GITHUB_OUTPUT` entry that a value cannot end early.
 * The webview draws profile text only as canvas text or `textContent`, so it needs none of these.
 */

/** Line terminators Markdown (CommonMark, markdown-it) or a JS string treats as line breaks. */
const LINE_BREAKS = /\r\n|[\r\n\u2028\u2029\u0085\v\f]/g;
/** C0 controls (but tab), DEL and C1 controls: invisible, or terminal escape introducers. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;
/** Bidirectional overrides and isolates: they reorder what a reader sees (Trojan Source). */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;

const hex = (c: string) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
const unicode = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** One line, with controls and bidi overrides as visible escapes (labels and Markdown build on it). */
function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(CONTROLS, hex).replace(BIDI, unicode);
}

/**
 * One line for a label: line breaks become spaces, controls and bidi overrides visible escapes, and
 * `$(name)` — which status bar items, CodeLens titles and quick picks draw as an icon — stays text
 * (a zero-width space after the `$`).
 */
export function labelText(text: string): string {
  return oneLine(text).replace(/\$\(/g, '$\u200b(');
}

/**
 * Markdown prose: every character Markdown gives meaning to is escaped (`$` too: tooltips that support
 * theme icons would draw `$(name)`); line breaks become spaces.
 */
export function mdEscape(text: string): string {
  return oneLine(text).replace(/[\\`*_{}[\]()#+\-.!|<>~&:$]/g, (c) => `\\${c}`);
}

/**
 * A Markdown code span that shows `text` literally: no line terminator survives (a `\r` or U+2028 could
 * end the span and start Markdown), and the backtick fence is longer than any backtick run inside.
 */
export function mdCode(text: string): string {
  const flat = oneLine(text);
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') || flat === '' ? ' ' : '';
  return `${fence}${pad}${flat}${pad}${fence}`;
}

/**
 * Text for a VS Code notification (showInformation/Warning/ErrorMessage, progress messages). Those
 * render `[label](command:…)`, `(https:…)` and `(file:…)` links; breaking every `](` and bracket pair
 * keeps the text readable while no link can form. Line breaks stay (notifications show them).
 */
export function notificationText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[\u2028\u2029\u0085\v\f]/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, hex)
    .replace(BIDI, unicode)
    .replace(/\[/g, '\u27e6') // ⟦
    .replace(/\]/g, '\u27e7'); // ⟧
}

/**
 * Text for the terminal: escape sequences (OSC 52 clipboard writes, OSC 8 links, cursor moves, clears)
 * and other controls are shown as visible `\x1b`-style escapes. Newlines and tabs are kept when
 * `multiline` (app output); otherwise a name or path stays on one line. A CI log is a terminal too:
 * no line can be read as a GitHub Actions workflow command (`workflowLogText`).
 */
export function terminalText(text: string, multiline = false): string {
  const safe = (line: string) => workflowLogText(line.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, hex).replace(BIDI, unicode).replace(/[\u2028\u2029]/g, unicode));
  if (!multiline) return safe(text);
  return text.replace(/\r\n/g, '\n').split('\n').map(safe).join('\n');
}

/**
 * JSON for the terminal (`--json` on stdout): JSON.stringify already escapes C0 controls, but leaves C1
 * controls (8-bit CSI/OSC), U+2028/2029 and bidi overrides raw. They become `\uXXXX` escapes, which
 * parse to the same value; so does the `[` of a `##[` (a CI log would read it as a command).
 */
export function terminalJson(value: unknown, indent = 2): string {
  // `##[` (GitHub Actions' older command form, read anywhere in a line) occurs only inside strings: its
  // `[` as `\u005b` parses to the same value. No line of the document can start with `::`.
  return JSON.stringify(value, null, indent).replace(/[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, unicode).replace(/##\[/g, '##\\u005b');
}

/** Text for one log record: no line break can forge a second record; controls are escaped. */
export function logText(text: string): string {
  return workflowLogText(text).replace(/\r\n|[\r\n\u2028\u2029\u0085]/g, (c) => (c === '\n' ? '\\n' : c === '\r\n' ? '\\r\\n' : c === '\r' ? '\\r' : unicode(c)))
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, hex).replace(BIDI, unicode);
}

/**
 * Program text in an answer to an agent (Markdown or JSON): data, never instructions. One line, with
 * controls, line separators and bidi overrides removed (not escaped: an escape is noise to a model),
 * and at most `max` characters (a cut ends in `…`).
 */
export function agentText(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(LINE_BREAKS, ' ').replace(/\t/g, ' ').replace(CONTROLS, '').replace(BIDI, '');
  return flat.length > max ? `${flat.slice(0, Math.max(1, max - 1))}…` : flat;
}

/** Program text for an agent as a Markdown code span (`agentText`, then `mdCode`): it reads as data, whatever it says. */
export function agentCode(text: string, max = 200): string {
  return mdCode(agentText(text, max));
}

/**
 * Several lines of program text (an app's output) for an agent: a fenced block whose fence is longer
 * than any backtick run inside, each line cleaned as `agentText`, at most `maxLines` lines.
 */
export function agentBlock(text: string, maxLines = 20, maxLineChars = 300): string {
  const lines = text.replace(/\r\n?/g, '\n').split(/[\n\u2028\u2029\u0085\v\f]/).map((l) => agentText(l, maxLineChars));
  const shown = lines.length > maxLines ? [...lines.slice(0, maxLines), `… +${lines.length - maxLines} lines`] : lines;
  const longest = Math.max(2, ...shown.map((l) => Math.max(0, ...(l.match(/`+/g) ?? []).map((r) => r.length))));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${shown.join('\n')}\n${fence}`;
}

/**
 * GitHub Actions reads every line a step prints for workflow commands: `::name props::data` at the start
 * of a line (after any white space), and the older `##[name props]data` anywhere in it (actions/runner,
 * ActionCommand.TryParseV2 / TryParse). The runner unescapes `%25`, `%0D`, `%0A` in a command's data and,
 * in its properties (split on `,` and `=`), also `%3A` and `%2C`.
 */
const workflowData = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const workflowProperty = (text: string) => workflowData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');

export type WorkflowCommandName = 'error' | 'warning' | 'notice';
/** The annotation properties GitHub knows. */
export interface WorkflowProperties { file?: string; line?: number; endLine?: number; col?: number; endColumn?: number; title?: string }

/**
 * One annotation as a workflow command line (no trailing newline). Program text in the message or the
 * title (function names, file names) is data: controls other than line breaks and bidi overrides are
 * removed, line breaks kept as the runner's escapes, the rest escaped so it can neither end the command
 * nor add a property; `max` caps the message (GitHub shows annotations of a few KB).
 */
export function workflowCommand(name: WorkflowCommandName, properties: WorkflowProperties, message: string, max = 2000): string {
  // eslint-disable-next-line no-control-regex
  const clean = (s: string, cap: number) => { const t = s.replace(/\r\n?|[\u2028\u2029\u0085\v\f]/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(BIDI, ''); return t.length > cap ? `${t.slice(0, cap - 1)}…` : t; };
  const props = (Object.entries(properties) as Array<[keyof WorkflowProperties, string | number | undefined]>)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'number' ? String(Math.max(1, Math.floor(v))) : workflowProperty(clean(v as string, 300).replace(/\n/g, ' '))}`);
  return `::${name}${props.length ? ` ${props.join(',')}` : ''}::${workflowData(clean(message, max))}`;
}

/** Leading white space as the runner trims it (.NET's Char.IsWhiteSpace), then `::`. */
const COMMAND_START = /^([\s\u0085]*):(?=:)/;

/**
 * Text Hotpath prints (report, progress, errors) in a GitHub Actions log: no line of it can be read as a
 * workflow command — a line that would start with `::` gets its first colon as `%3A`, and `##[` anywhere
 * becomes `##%5B` — so a function name or app output cannot add an annotation, mask text or set an
 * output. Apply it to the whole text as printed (after `terminalText`).
 */
export function workflowLogText(text: string): string {
  // The runner reads lines as .NET's ReadLine splits them: at \r\n, \r and \n.
  return text.split(/(\r\n|\r|\n)/).map((l, i) => (i % 2 ? l : l.replace(/##\[/g, '##%5B').replace(COMMAND_START, '$1%3A'))).join('');
}

/**
 * One `name=value` entry of `$GITHUB_OUTPUT` (or `$GITHUB_ENV`), newline-terminated. The name is checked
 * (letters, digits, `_`, `-`); a value with a line break uses the runner's `name<<DELIMITER` form with a
 * delimiter found nowhere in the value, so no value can end its entry early and add another.
 */
export function githubFileEntry(name: string, value: string, delimiter = `hotpath_${Math.random().toString(36).slice(2)}_eof`): string {
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name)) throw new RangeError(`Not an output name: ${JSON.stringify(name)}`);
  if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
  let d = delimiter;
  while (value.includes(d)) d += '_';
  return `${name}<<${d}\n${value.replace(/\r\n?/g, '\n')}\n${d}\n`;
}
