/**
 * Keeps a thread's CPU profiler running from before the warm-up, so the profile of the measured window
 * knows all the code the warm-up compiled.
 *
 * Why: V8's profiler learns about compiled code from code events while it runs; when it starts, it
 * enumerates the code that exists, but not on-stack-replacement code. A function whose long loop was
 * OSR-compiled during the warm-up keeps entering that code on every later call, and every sample in it
 * lands on the line of its *caller* that made the call (v8-signals §1.6.3): a piscina worker's task
 * function (a loop over every product name) showed up as 89% self time on piscina's `await
 * handler(task)` line. With a profile already running (this one, started through the inspector's
 * `profile()` command-line function, never the app's own `console`), the measured profile shares that
 * profiler and its code map. Its own samples are discarded when it ends.
 */
import { errorMessage } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import type { CdpSession } from './cdpClient';

const TITLE = 'hotpath-code-map';

async function commandLine(session: CdpSession, expression: string): Promise<boolean> {
  const r = await session.send<{ exceptionDetails?: unknown }>('Runtime.evaluate', { expression, includeCommandLineAPI: true, silent: true, returnByValue: true });
  return !r.exceptionDetails;
}

export class CodeMapKeeper {
  private stopped = false;
  private constructor(private readonly session: CdpSession, private readonly logger: Logger) {}

  /**
   * Starts the keeper profile at `intervalMicros` (the interval of the profiler it creates: the measured
   * profile then runs at the same one). Undefined when it could not start: profiling works as before.
   */
  static async start(session: CdpSession, intervalMicros: number, logger: Logger = silentLogger): Promise<CodeMapKeeper | undefined> {
    try {
      await session.send('Profiler.enable');
      await session.send('Profiler.setSamplingInterval', { interval: intervalMicros });
      if (!(await commandLine(session, `profile(${JSON.stringify(TITLE)})`))) return undefined;
      return new CodeMapKeeper(session, logger);
    } catch (err) {
      logger.warn(`The profiler could not be started before the warm-up: ${errorMessage(err)}`);
      return undefined;
    }
  }

  /** Ends the keeper profile (after the measured one stopped). Idempotent; never throws. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    try { await commandLine(this.session, `profileEnd(${JSON.stringify(TITLE)})`); } catch (err) {
      this.logger.info(`Ending the warm-up profile: ${errorMessage(err)}`);
    }
  }
}
