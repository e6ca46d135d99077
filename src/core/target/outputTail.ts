import { isV8TraceLine } from '../v8/inliningTrace';

/**
 * What Node itself prints on stderr about the inspector Hotpath uses: "Debugger attached." when Hotpath
 * connects, "Waiting for the debugger to disconnect..." at exit in script mode (the announcement of a
 * listening inspector is switched off with --inspect-publish-uid=http).
 */
export const INSPECTOR_LINE = /^(Debugger attached\.|Waiting for the debugger to disconnect\.\.\.|Debugger (listening|ending) on ws:\/\/\S+|For help, see: https:\/\/nodejs\.org\/\S*)\s*$/;

/** Keeps the last N lines a process printed, so errors can show what the app said before it failed. */
export class OutputTail {
  private lines: string[] = [];
  private partial = '';

  constructor(private readonly maxLines = 40) {}

  push(chunk: string): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.add(line);
  }

  private add(line: string): void {
    if (isV8TraceLine(line)) return; // V8's own tracing (Hotpath's V8 signals), not the app's words
    if (INSPECTOR_LINE.test(line)) return; // Node announcing Hotpath's inspector session, not the app either
    this.lines.push(line.length > 500 ? line.slice(0, 500) + '…' : line);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }

  text(): string {
    const all = this.partial ? [...this.lines, this.partial] : this.lines;
    return all.join('\n');
  }

  /** The tail as an indented block for an error message, or '' when the app printed nothing. */
  forMessage(): string {
    const text = this.text().trim();
    return text ? `\nLast output of the app:\n${text.split('\n').map((l) => '  ' + l).join('\n')}` : '';
  }
}
