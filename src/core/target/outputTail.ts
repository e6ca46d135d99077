import { isV8TraceLine } from '../v8/inliningTrace';

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
