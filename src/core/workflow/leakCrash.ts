/**
 * A leak check whose app ends before the check does — it exits, is killed, or runs out of memory (a fast
 * leak fills the heap: that is what a leak does). The check must then neither wait for ever (a load of
 * a fixed number of requests against a closed port never completes) nor lose what it measured: the
 * watch below stops every step the moment the app is gone, and the crash is described — exit code,
 * signal, V8's out-of-memory line, the app's last words, where the check was — for every surface.
 */
import { once } from 'node:events';
import { CancellationTokenSource, type CancellationToken } from '../common/cancellation';
import type { Disposable } from '../common/disposable';
import type { CdpClient } from '../inspector/cdpClient';
import type { LaunchedTarget } from '../target/launcher';
import { growthRate } from '../memory/growthComparison';
import { GROWTH_FLOOR_BYTES_PER_REQUEST, type Growth, type Rung } from '../memory/growth';
import { outOfMemoryLine, rungThatFits, type HeapCeiling } from '../memory/heapCeiling';
import { formatBytes, formatInt } from '../../shared/text/numbers';

/** Where the check was when the app ended. */
export type LeakStep = 'warmup' | 'load' | 'measurement' | 'idle';

export interface LeakCrash {
  /** The command's exit code, or null (killed by a signal, or only the app's inspector closed). */
  code: number | null;
  signal: string | null;
  /** V8 printed its fatal out-of-memory report. */
  outOfMemory: boolean;
  /** That report's line, as V8 printed it (app output: hostile text). */
  outOfMemoryLine: string | null;
  during: LeakStep;
  /** Requests of the check's load answered by the rungs measured before the end. */
  afterRequests: number;
  /** The cumulative request count the interrupted load rung was heading for (during 'load'). */
  rungTarget: number | null;
  /** The app's last output lines (its own words: hostile text). */
  output: string[];
  /** What happened and what to do, in one paragraph (no app output in it). */
  message: string;
}

/** How long an app that stopped answering gets to report its exit before an error is taken at its word. */
const EXIT_GRACE_MS = 3000;
/** The app's output after its exit (V8's report is written just before the process aborts). */
const OUTPUT_GRACE_MS = 1000;
const OUTPUT_LINES = 20;

/**
 * Ends every step of the check when the app is gone: its token fires when the user cancels, the command
 * exits, the app's inspector disconnects (the app died under a wrapper such as npm), or the app starts to
 * exit — a Node process with a debugger attached does not exit (process.exit, an uncaught exception) but
 * waits for the debugger to disconnect, answering nothing meanwhile; the inspector says so
 * (NodeRuntime.waitingForDisconnect) and the watch lets it go.
 */
export class TargetWatch implements Disposable {
  private readonly source = new CancellationTokenSource();
  private readonly subscriptions: Disposable[] = [];
  private gone = false;

  private constructor(private readonly target: LaunchedTarget, private readonly client: CdpClient, private readonly userToken: CancellationToken) {
    const end = () => { this.gone = true; this.source.cancel(); };
    this.subscriptions.push(
      userToken.onCancellationRequested(() => this.source.cancel()),
      client.onDisconnect(end),
      client.onEvent('NodeRuntime.waitingForDisconnect', end),
    );
    void target.exited.then(end);
    if (target.hasExited || client.isClosed) end();
  }

  static async start(target: LaunchedTarget, client: CdpClient, userToken: CancellationToken): Promise<TargetWatch> {
    const watch = new TargetWatch(target, client, userToken);
    await client.trySend('NodeRuntime.notifyWhenWaitingForDisconnect', { enabled: true });
    return watch;
  }

  /** For the check's steps: cancelled by the user or by the app's end. */
  get token(): CancellationToken { return this.source.token; }

  /**
   * After a step failed: true when the app is gone (its end is what failed the step), waiting a moment
   * for the exit to be reported. False for the user's cancellation and for an app that is still there.
   */
  async appEnded(): Promise<boolean> {
    if (this.userToken.isCancellationRequested) return false;
    if (!this.gone) await Promise.race([this.target.exited, this.endOf(this.source.token), sleep(EXIT_GRACE_MS)]);
    if (!this.gone) return false;
    // Let an app that waits for the debugger finish exiting; under a wrapper (npm) the command exits a moment later with its code.
    await this.client.close();
    if (!this.target.hasExited) await Promise.race([this.target.exited, sleep(EXIT_GRACE_MS)]);
    return true;
  }

  private endOf(token: CancellationToken): Promise<void> {
    return new Promise((resolve) => { token.onCancellationRequested(() => resolve()); });
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.source.dispose();
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => { setTimeout(resolve, ms).unref(); });

export interface CrashContext {
  during: LeakStep;
  rungs: readonly Rung[];
  rungTarget: number | null;
  /** The growth over the rungs measured before the end. */
  growth: Growth;
  ceiling: HeapCeiling;
  /** Requests between the first rungs (N) of this check. */
  rungRequests: number;
}

/** The crash, once the app is gone (its output read to the end, within a moment). */
export async function describeCrash(target: LaunchedTarget, ctx: CrashContext): Promise<LeakCrash> {
  await outputDrained(target);
  const text = target.output.text();
  const oom = outOfMemoryLine(text);
  const info = target.exitInfo;
  const afterRequests = ctx.rungs.length ? ctx.rungs[ctx.rungs.length - 1].requests : 0;
  const ended = info ? target.describeExit() : 'closed its inspector (the app process ended; the command is still running)';
  const when = whenText(ctx.during, afterRequests, ctx.rungTarget);
  const kept = ctx.rungs.length
    ? `The check is incomplete: the ${ctx.rungs.length} heap measurement${ctx.rungs.length === 1 ? '' : 's'} before the end ${ctx.rungs.length === 1 ? 'is' : 'are'} kept below; no verdict.`
    : 'The check is incomplete: no heap measurement was taken before the end; no verdict.';
  const head = oom
    ? `The app ran out of memory ${when} (V8: "${oom.replace(/^FATAL ERROR:\s*/, '')}"; the command ${ended})${limitText(ctx.ceiling)}.`
    : `The app ${ended} ${when}.`;
  const advice = oom ? oomAdvice(ctx) : 'Fix what ended it (its last output is below) and run the check again.';
  const lines = text.trim() ? text.trim().split('\n').slice(-OUTPUT_LINES) : [];
  return {
    code: info?.code ?? null, signal: info?.signal ?? null, outOfMemory: oom !== null, outOfMemoryLine: oom,
    during: ctx.during, afterRequests, rungTarget: ctx.rungTarget, output: lines,
    message: `${head} ${kept} ${advice}`,
  };
}

function whenText(during: LeakStep, after: number, target: number | null): string {
  switch (during) {
    case 'warmup': return 'during the warm-up';
    case 'load': return `during the load between ${formatInt(after)} and ${formatInt(target ?? after)} requests`;
    case 'measurement': return `while its heap was measured after ${formatInt(after)} requests`;
    case 'idle': return `during the idle period after ${formatInt(after)} requests`;
  }
}

function limitText(c: HeapCeiling): string {
  const limit = c.heapSizeLimitBytes !== null ? `a heap limit of ${formatBytes(c.heapSizeLimitBytes)}` : 'its heap limit';
  return c.setBy === 'hotpath'
    ? ` at ${limit}: the check's ceiling, --max-old-space-size=${c.maxOldSpaceMb}`
    : ` at ${limit}, the app's own${c.maxOldSpaceMb !== null ? ` --max-old-space-size=${c.maxOldSpaceMb}` : ''}`;
}

function oomAdvice(ctx: CrashContext): string {
  const g = ctx.growth;
  const proven = g.n >= 3 && g.ciLow > GROWTH_FLOOR_BYTES_PER_REQUEST;
  const fits = proven ? rungThatFits(ctx.ceiling, ctx.rungs[0]?.heapUsedBytes, g.bytesPerRequest) : null;
  const fitsText = fits !== null && fits < ctx.rungRequests ? ` Re-run with --rung ${fits} (VS Code: hotpath.leak.rungRequests) so the whole check fits in the heap and names the retaining line.` : '';
  const grew = proven
    ? `The heap grew ${growthRate(g.bytesPerRequest)} (95% CI ${growthRate(g.ciLow)} … ${growthRate(g.ciHigh)}) over those measurements: a leak this fast fills the heap before the check ends.${fitsText}`
    : 'Either a fast leak filled the heap, or the app needs more heap than that.';
  const raise = ctx.ceiling.setBy === 'hotpath'
    ? ` To give the app more, set your own limit: the check respects it (CLI: --env NODE_OPTIONS=--max-old-space-size=MB; VS Code: the target's env).`
    : '';
  return `${grew}${raise}`;
}

/** Waits (briefly) until the command's stdout and stderr are closed, so V8's last report is in the tail. */
async function outputDrained(target: LaunchedTarget): Promise<void> {
  const child = target.child;
  if (child.stdout?.closed !== false && child.stderr?.closed !== false) return;
  await Promise.race([once(child, 'close').catch(() => undefined), new Promise((r) => setTimeout(r, OUTPUT_GRACE_MS).unref())]);
}
