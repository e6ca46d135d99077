/**
 * Runs started by agents, as jobs that outlive one tool call: a client ends a call after about 60 s,
 * a profile or a comparison can take minutes. A call waits up to 50 s, then answers with the job's
 * runId; `hotpath_status` waits again. One job at a time (runs share the machine's cores: two would
 * measure each other). Every job's app is stopped when it is cancelled and when the host shuts down.
 */
import { CancellationTokenSource, type CancellationToken } from '../common/cancellation';
import { errorMessage, ErrorCode, HotpathError, isHotpathError } from '../common/errors';
import type { RunResultAny } from '../report';
import type { WorkflowProgress } from '../workflow/progress';

export type JobStatus = 'running' | 'done' | 'failed' | 'cancelled';

export interface JobProgress {
  stage: string;
  message: string;
  /** 0..1 when known. */
  fraction?: number;
}

export class Job {
  status: JobStatus = 'running';
  progress: JobProgress = { stage: 'starting', message: 'Starting' };
  result?: RunResultAny;
  error?: { code: string; message: string };
  readonly startedAt = Date.now();
  finishedAt?: number;
  readonly finished: Promise<void>;
  private readonly source = new CancellationTokenSource();
  private readonly listeners = new Set<(p: JobProgress) => void>();

  constructor(
    readonly id: string,
    readonly tool: string,
    /** The command it runs, for people and agents. */
    readonly description: string,
    work: (token: CancellationToken, onProgress: (p: WorkflowProgress) => void) => Promise<RunResultAny>,
  ) {
    this.finished = work(this.source.token, (p) => this.report({ stage: p.stage, message: p.message, ...(p.fraction !== undefined ? { fraction: p.fraction } : {}) }))
      .then((result) => { this.result = result; this.status = 'done'; })
      .catch((err: unknown) => {
        this.status = isHotpathError(err, ErrorCode.Cancelled) || this.source.token.isCancellationRequested ? 'cancelled' : 'failed';
        this.error = isHotpathError(err) ? { code: err.code, message: err.message } : { code: 'INTERNAL', message: errorMessage(err) };
      })
      .finally(() => { this.finishedAt = Date.now(); this.source.dispose(); });
  }

  get elapsedSeconds(): number {
    return Math.round(((this.finishedAt ?? Date.now()) - this.startedAt) / 1000);
  }

  private report(p: JobProgress): void {
    // Keep the last known fraction: some stages report none.
    this.progress = { ...p, fraction: p.fraction ?? this.progress.fraction };
    for (const l of this.listeners) l(this.progress);
  }

  onProgress(listener: (p: JobProgress) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Stops the run: its app and load stop at once (the workflows stop their process trees on cancellation). */
  cancel(): void {
    if (this.status === 'running') this.source.cancel();
  }
}

export class JobRegistry {
  private readonly jobs = new Map<string, Job>();
  private next = 1;

  constructor(
    /** Finished jobs kept for their results (runIds stay readable); the oldest go first. */
    private readonly keep = 8,
  ) {}

  get running(): Job | undefined {
    return [...this.jobs.values()].find((j) => j.status === 'running');
  }

  start(tool: string, description: string, work: ConstructorParameters<typeof Job>[3]): Job {
    const busy = this.running;
    if (busy) {
      throw new HotpathError(ErrorCode.InvalidOption,
        `Hotpath is already running ${busy.tool} ${busy.id} (${busy.progress.message}, ${busy.elapsedSeconds} s): runs share this machine's cores, so two at once would measure each other (and a second app on the same port could not listen). Wait for it with hotpath_status {"runId": "${busy.id}"}, or stop it with hotpath_status {"runId": "${busy.id}", "cancel": true}.`);
    }
    const job = new Job(`run-${this.next++}`, tool, description, work);
    this.jobs.set(job.id, job);
    this.prune();
    return job;
  }

  get(id: string): Job | undefined {
    return this.jobs.get(id);
  }

  /** The job, or an error that says which runIds exist. */
  require(id: string): Job {
    const job = this.jobs.get(id);
    if (job) return job;
    const known = [...this.jobs.keys()];
    throw new HotpathError(ErrorCode.InvalidOption, `No run "${id}" in this session${known.length ? ` (runs: ${known.join(', ')})` : ' (no run started yet)'}. runIds come from hotpath_profile and the other run tools; they live as long as the Hotpath server. For a profile on disk, pass \`profile\` with its path instead.`);
  }

  private prune(): void {
    const finished = [...this.jobs.values()].filter((j) => j.status !== 'running');
    for (const j of finished.slice(0, Math.max(0, finished.length - this.keep))) this.jobs.delete(j.id);
  }

  /** Cancels every running job and waits until their apps have stopped. */
  async stopAll(): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.status === 'running');
    for (const j of running) j.cancel();
    await Promise.all(running.map((j) => j.finished));
  }
}
