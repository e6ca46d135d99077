import * as vscode from 'vscode';
import { errorMessage, ErrorCode, isHotpathError } from '../../core/common/errors';
import { CancellationTokenSource, type CancellationToken } from '../../core/common/cancellation';
import type { ProgressSink, WorkflowProgress } from '../../core/workflow/progress';
import type { RequestChooser } from '../../core/workflow/requestPath';
import { coreLogger } from '../log';
import type { HotpathSession } from '../session';
import { rps } from '../status/render';
import { applyResult, type ApplyContext } from './applyResult';
import { checksOf, executeRun, runTitle, type RunRequest, type RunResult } from './runs';
import { checksBeforeRun } from '../../core/workflow/preflight';
import { progressText, showError, showInfo } from '../notify';

export class RunBusyError extends Error {}

/** What a command adds to a run: who answers the request-path question, and a note for the summary. */
export interface RunOptions {
  chooseRequest?: RequestChooser;
  note?: string;
}

/**
 * Runs workflows for the editor: one at a time, with the status bar following the run, and the result
 * applied to the editor afterwards. Commands add a progress notification; the debug adapter its console.
 */
export class RunController implements vscode.Disposable {
  /** Cancels the run in progress when the extension shuts down, so its app does not outlive the editor. */
  private active: CancellationTokenSource | undefined;

  /** The last failure of runWithProgress (already reported), so a command can offer the fix. */
  lastError: unknown;

  constructor(private readonly ctx: ApplyContext) {}

  private get session(): HotpathSession { return this.ctx.session; }

  /** Runs without UI of its own; throws on failure and cancellation (HotpathError CANCELLED). */
  async execute(request: RunRequest, options: RunOptions & { token: CancellationToken; onProgress?: ProgressSink; notify: boolean }): Promise<{ result: RunResult; summary: string }> {
    const title = runTitle(request);
    if (!this.session.tryStartRun(title)) {
      throw new RunBusyError(`Hotpath is already running "${this.session.busy}". Wait for it to finish or cancel it: runs share this machine's cores, so two at once would measure each other.`);
    }
    const before = this.session.status;
    this.session.setStatus({ kind: 'running', title, stage: 'starting' });
    const log = this.ctx.log;
    log.info(`${title}: ${describe(request)}`);
    this.preflight(request, title);
    const source = new CancellationTokenSource();
    this.active = source;
    const link = options.token.onCancellationRequested(() => source.cancel());
    if (options.token.isCancellationRequested) source.cancel();
    try {
      const result = await executeRun(request, {
        token: source.token,
        logger: coreLogger(log),
        ...(options.chooseRequest ? { chooseRequest: options.chooseRequest } : {}),
        onProgress: (p: WorkflowProgress) => {
          this.session.setStatus({ kind: 'running', title, stage: p.stage, requestsPerSecond: p.requestsPerSecond, interval: p.interval });
          options.onProgress?.(p);
        },
      });
      const after = checksOf(result);
      if (after.length) {
        this.session.setChecks({ phase: 'after', title, list: after });
        for (const c of after) if (c.status === 'warn') log.warn(`Check after the run — ${c.title}: ${c.observed}${c.advice ? `. ${c.advice}` : ''}`);
      }
      const summary = await applyResult(this.ctx, result, { notify: options.notify, note: options.note });
      log.info(summary);
      return { result, summary };
    } catch (err) {
      this.session.setStatus(before);
      log.error(`${title} ${isHotpathError(err, ErrorCode.Cancelled) ? 'cancelled' : `failed: ${err instanceof Error ? err.stack ?? err.message : err}`}`);
      throw err;
    } finally {
      link.dispose();
      source.dispose();
      this.active = undefined;
      this.session.endRun();
    }
  }

  /** The production-parity checks knowable before the run, into the Hotspots view and the log. */
  private preflight(request: RunRequest, title: string): void {
    // Startup and benchmark runs have no profiling-parity checklist of their own (their results carry their warnings).
    if (request.kind === 'bench' || request.kind === 'startup') return;
    const list = request.kind === 'attach'
      ? checksBeforeRun({ mode: 'attach', samplingIntervalMicros: request.settings.samplingIntervalMicros })
      : checksBeforeRun({ mode: request.kind === 'script' ? 'script' : 'launch', command: request.target.command, env: { ...process.env, ...request.target.env }, samplingIntervalMicros: request.settings.samplingIntervalMicros });
    this.session.setChecks({ phase: 'before', title, list });
    for (const c of list) if (c.status === 'warn') this.ctx.log.warn(`Check before the run — ${c.title}: ${c.observed}${c.advice ? `. ${c.advice}` : ''}`);
  }

  dispose(): void {
    this.active?.cancel();
  }

  /** The command palette path: progress notification with Cancel, errors as notifications. */
  async runWithProgress(request: RunRequest, extras: RunOptions = {}): Promise<RunResult | undefined> {
    const title = `Hotpath: ${runTitle(request)}`;
    this.lastError = undefined;
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: progressText(title), cancellable: true }, async (progress, token) => {
        let done = 0;
        const { result } = await this.execute(request, {
          ...extras, token, notify: true,
          onProgress: (p) => {
            const fraction = p.fraction ?? done;
            const increment = Math.max(0, fraction - done) * 100;
            done = Math.max(done, fraction);
            // The core's load messages already carry the live rate; add it only where they do not.
            const live = p.requestsPerSecond !== undefined && !p.message.includes('req/s') ? ` · ${rps(p.requestsPerSecond)} req/s` : '';
            progress.report({ message: progressText(`${p.message}${live}`), increment });
          },
        });
        return result;
      });
    } catch (err) {
      this.lastError = err;
      if (isHotpathError(err, ErrorCode.Cancelled)) {
        void showInfo(`${title} cancelled${request.kind === 'attach' ? '; the process keeps running' : '; the app was stopped'}.`);
        return undefined;
      }
      if (isHotpathError(err, ErrorCode.BaselineNotFound)) return undefined; // the command offers to create one
      const choice = await showError(`${title} failed: ${errorMessage(err)}`, 'Show Log');
      if (choice === 'Show Log') this.ctx.log.show(true);
      return undefined;
    }
  }
}

function describe(request: RunRequest): string {
  if (request.kind === 'attach') return request.describe;
  if (request.kind === 'bench') return `${request.file} (${request.runs} processes${request.compareTasks ? `; "${request.compareTasks[1]}" against "${request.compareTasks[0]}", interleaved${request.pairs ? `, ${request.pairs} pairs` : ''}` : ''})`;
  const env = Object.entries(request.target.env).map(([k, v]) => `${k}=${v} `).join('');
  return `${env}${request.target.command.join(' ')} (cwd ${request.target.cwd})`;
}
