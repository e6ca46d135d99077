import type { SingleBar } from 'cli-progress';
import type { WorkflowProgress } from '../core/workflow/progress';
import { terminalText } from '../shared/text/safe';

/**
 * Progress on stderr: a bar on a terminal, one line per stage change otherwise (CI logs),
 * and nothing with --json unless stderr is a terminal — stdout stays clean in every case.
 */
export class ProgressView {
  private bar: SingleBar | undefined;
  private lastMessageStage = '';

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr, private readonly enabled = true) {}

  update(progress: WorkflowProgress): void {
    if (!this.enabled) return;
    // Messages name the command and its processes (app text): shown, never interpreted.
    const p = { ...progress, message: terminalText(progress.message) };
    if (this.stream.isTTY) {
      if (!this.bar) {
        // Required here, on a terminal only: CI logs and --json never load it.
        const { SingleBar } = require('cli-progress') as typeof import('cli-progress');
        this.bar = new SingleBar({ stream: this.stream, format: ' {bar} {percentage}% | {message}', barsize: 24, hideCursor: true, clearOnComplete: true, fps: 8 });
        this.bar.start(100, 0, { message: p.message });
      }
      this.bar.update(Math.round((p.fraction ?? 0) * 100), { message: p.message });
      return;
    }
    const key = `${p.stage}:${p.message.replace(/:.*$/, '')}`;
    if (key !== this.lastMessageStage) {
      this.lastMessageStage = key;
      this.stream.write(`hotpath: ${p.message.replace(/:.*$/, '')}…\n`);
    }
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
