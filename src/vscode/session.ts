import * as vscode from 'vscode';
import type { Attribution } from '../core/attribution';
import type { Annotations } from '../core/annotate';
import type { ProfileModel } from '../core/profile';
import type { ThreadHotspot, ThreadPackage } from '../core/workflow/analyze';
import type { V8FunctionSignals } from '../core/v8/types';
import type { StatusState } from './status/render';
import type { PreflightCheck } from '../core/workflow/preflight';
import type { FlameContent } from './flame/flameWebview';
import type { CompareRunRequest } from './workflow/runs';
import type { ModuleLineLabel } from '../core/startup/lineLabels';
import type { BenchTask } from '../core/bench/aggregate';

/** The profile whose data the editor shows (CodeLens, decorations, hovers, flamegraph, Hotspots view). */
export interface LoadedProfile {
  profilePath: string;
  title: string;
  /**
   * The model, for a run's result (analysed in the engine). A profile opened from disk has none on this
   * thread: its worker sends `payload` (the flamegraph) and the annotations instead.
   */
  model?: ProfileModel;
  annotations: Annotations;
  /** Where each second belongs (call-site lines, inlined code, own cost), for a run's result; profiles opened from disk keep it in their worker. */
  attribution?: Attribution;
  /** Ranked by own cost for user code, self time for the rest. */
  hotspots: ThreadHotspot[];
  /** Per npm package totals (the Hotspots view's dependency group). */
  packages: ThreadPackage[];
  /** V8's signals per model function (flamegraph tier colours), when the run collected them. */
  v8Functions?: ReadonlyMap<number, V8FunctionSignals>;
  /** The profile it is compared with in the flamegraph, if any (differential view). */
  before?: ProfileModel;
  /** The flamegraph, when it was built with the profile (off the main thread); else built on demand. */
  payload?: import('../shared/flame/payload').FlamePayload;
  /** A profile with worker threads: `payload` is all threads together; these are each thread's own, to pick. */
  threads?: Array<{ thread: string; payload: import('../shared/flame/payload').FlamePayload }>;
  /** How the two sides of a comparison match and are named in the differential view. */
  diff?: Pick<FlameContent, 'beforeTitle' | 'beforeRoot' | 'afterRoot' | 'sides'>;
  /** Allocation, and event-loop annotations by file (a run with them). */
  runtime?: Map<string, import('../core/annotate').RuntimeFileAnnotations>;
  /** The run's allocation profile (--memory), for the flamegraph's Allocations view. */
  allocation?: { model: ProfileModel; requests: number | null; title: string; attribution?: Attribution };
  /** Blocking episodes of the run, for the flame chart's lane. */
  blocking?: import('../core/loop/blocking').BlockingAnalysis;
  eventLoop?: import('../core/workflow/memoryAndLoop').EventLoopResult;
}

/**
 * The extension's state: one value each, with change events. Components render from it; commands and
 * the debug adapter write to it. Holds no UI itself.
 */
export class HotpathSession implements vscode.Disposable {
  private readonly profileChanged = new vscode.EventEmitter<LoadedProfile | undefined>();
  private readonly statusChanged = new vscode.EventEmitter<StatusState>();
  private readonly historyChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeProfile = this.profileChanged.event;
  readonly onDidChangeStatus = this.statusChanged.event;
  /** Profiles or baselines on disk changed (a run saved one, the user deleted one). */
  readonly onDidChangeHistory = this.historyChanged.event;
  private readonly startupChanged = new vscode.EventEmitter<void>();
  /** The last `Profile Startup`'s require/import line costs changed. */
  readonly onDidChangeStartup = this.startupChanged.event;
  private readonly benchChanged = new vscode.EventEmitter<void>();
  /** A benchmark file's results changed. */
  readonly onDidChangeBench = this.benchChanged.event;
  /** The last startup run's module costs per file (absolute path), by require/import line. */
  private startupLines = new Map<string, ModuleLineLabel[]>();
  /** The last results of each benchmark file (absolute path). */
  private benchResults = new Map<string, BenchTask[]>();

  private currentProfile: LoadedProfile | undefined;
  private currentStatus: StatusState = { kind: 'idle' };
  private running: string | undefined;
  /** The production-parity checklist of the last run: before it starts, then replaced by the run's own. */
  checks: { phase: 'before' | 'after'; title: string; list: PreflightCheck[] } | undefined;
  /** The last baseline saved or compared with: the status bar's "open baseline" link. */
  lastBaselineFile: string | undefined;
  /** The last comparison asked for: "Compare again" repeats it. */
  lastCompare: CompareRunRequest | undefined;

  get profile(): LoadedProfile | undefined { return this.currentProfile; }
  get status(): StatusState { return this.currentStatus; }
  /** Title of the run in progress; runs are one at a time (they share the machine's cores). */
  get busy(): string | undefined { return this.running; }

  setProfile(profile: LoadedProfile | undefined): void {
    this.currentProfile = profile;
    this.profileChanged.fire(profile);
  }

  setStatus(status: StatusState): void {
    this.currentStatus = status;
    this.statusChanged.fire(status);
  }

  historyDidChange(): void { this.historyChanged.fire(); }

  setStartupLines(lines: Map<string, ModuleLineLabel[]>): void {
    this.startupLines = lines;
    this.startupChanged.fire();
  }

  startupLinesOf(file: string): ModuleLineLabel[] { return this.startupLines.get(file) ?? []; }

  setBenchResults(file: string, tasks: BenchTask[]): void {
    this.benchResults.set(file, tasks);
    this.benchChanged.fire();
  }

  benchResultsOf(file: string): BenchTask[] | undefined { return this.benchResults.get(file); }

  setChecks(checks: HotpathSession['checks']): void {
    this.checks = checks;
    this.historyChanged.fire();
  }

  /** Marks a run as started; returns false when another one is running. */
  tryStartRun(title: string): boolean {
    if (this.running) return false;
    this.running = title;
    return true;
  }

  endRun(): void { this.running = undefined; }

  dispose(): void {
    this.profileChanged.dispose();
    this.statusChanged.dispose();
    this.historyChanged.dispose();
    this.startupChanged.dispose();
    this.benchChanged.dispose();
  }
}
