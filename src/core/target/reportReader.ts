import * as fs from 'node:fs';
import { EventEmitter } from '../common/events';
import type { Disposable } from '../common/disposable';
import { parseReportLine, type TargetReport } from './reports';

/**
 * Follows the report file the preloads append to. Polling (every 20 ms) instead of fs.watch:
 * watch events are coalesced or lost on some filesystems, and the latency here is irrelevant.
 */
export class ReportReader implements Disposable {
  private readonly emitter = new EventEmitter<TargetReport>();
  readonly onReport = this.emitter.event;
  readonly reports: TargetReport[] = [];
  private offset = 0;
  private pending = '';
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly file: string, intervalMs = 20) {
    this.timer = setInterval(() => this.poll(), intervalMs);
  }

  /** Reads whatever was appended since the last call. Also called once more before giving up on a target. */
  poll(): void {
    let fd: number;
    try { fd = fs.openSync(this.file, 'r'); } catch { return; }
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= this.offset) return;
      const buffer = Buffer.alloc(size - this.offset);
      fs.readSync(fd, buffer, 0, buffer.length, this.offset);
      this.offset = size;
      const lines = (this.pending + buffer.toString('utf8')).split('\n');
      this.pending = lines.pop() ?? '';
      for (const line of lines) {
        const report = parseReportLine(line);
        if (report) { this.reports.push(report); this.emitter.fire(report); }
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  dispose(): void {
    clearInterval(this.timer);
    this.emitter.dispose();
  }
}
