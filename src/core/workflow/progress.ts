/** What a long workflow step reports, for the CLI's progress bar and VS Code's progress notification. */
export type WorkflowStage = 'preparing' | 'starting' | 'warmup' | 'measuring' | 'profiling' | 'analyzing' | 'stopping';

export interface WorkflowProgress {
  stage: WorkflowStage;
  message: string;
  /** 0..1 of the whole command, when known. */
  fraction?: number;
  /** Live load figure of the last second, when load is running. */
  requestsPerSecond?: number;
  /** A comparison's interval so far (the metric the stopping rule watches). */
  interval?: { label: string; ratio: number; ciLow: number; ciHigh: number; halfWidthPct: number; targetPct: number; pairs: number; level: number };
}

export type ProgressSink = (progress: WorkflowProgress) => void;
