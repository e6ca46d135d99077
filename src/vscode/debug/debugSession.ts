import { InitializedEvent, LoggingDebugSession, OutputEvent, TerminatedEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { CancellationTokenSource } from '../../core/common/cancellation';
import { errorMessage, ErrorCode, isHotpathError } from '../../core/common/errors';
import type { CompareSettings, RunSettings } from '../settings';
import { rps } from '../status/render';
import type { RunController } from '../workflow/runController';
import { requestFromLaunchConfig, type HotpathLaunchConfig } from './launchConfig';
import { notificationText, terminalText } from '../../shared/text';

/**
 * The `hotpath` debug type: F5 runs a workflow instead of a debugger. Progress and the result stream to
 * the Debug Console; Stop cancels the run, which stops the app's whole process tree. Runs in the
 * extension host (DebugAdapterInlineImplementation), so it shares the editor's state and annotations.
 */
export class HotpathDebugSession extends LoggingDebugSession {
  private readonly cancel = new CancellationTokenSource();
  private running: Promise<void> | undefined;

  constructor(
    private readonly controller: RunController,
    private readonly folder: string,
    private readonly defaults: RunSettings,
    private readonly compareDefaults?: CompareSettings,
  ) {
    super();
  }

  /** The Debug Console interprets escape sequences like a terminal: profile and app text is shown, not run. */
  private out(text: string, category: 'console' | 'stdout' | 'stderr' | 'important' = 'console'): void {
    this.sendEvent(new OutputEvent(`${terminalText(text, true)}\n`, category));
  }

  protected override initializeRequest(response: DebugProtocol.InitializeResponse): void {
    response.body = { ...response.body, supportsConfigurationDoneRequest: true, supportsTerminateRequest: true };
    this.sendResponse(response);
    this.sendEvent(new InitializedEvent());
  }

  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: DebugProtocol.LaunchRequestArguments): void {
    let request;
    try {
      request = requestFromLaunchConfig(args as HotpathLaunchConfig, this.folder, this.defaults, this.compareDefaults);
    } catch (err) {
      this.sendErrorResponse(response, { id: 1001, format: notificationText(errorMessage(err)), showUser: true });
      return;
    }
    this.sendResponse(response);
    const what = request.kind === 'attach' ? request.describe : request.kind === 'bench' ? request.file : request.target.command.join(' ');
    this.out(`Hotpath ${request.kind}: ${what}`, 'important');
    // A comparison whose sides set NODE_ENV themselves (development against production) measures that switch.
    const nodeEnvs = request.kind === 'attach' || request.kind === 'bench' ? [] : request.kind === 'compare'
      ? request.sides.map((side) => side.env?.NODE_ENV ?? request.target.env.NODE_ENV ?? process.env.NODE_ENV)
      : [request.target.env.NODE_ENV ?? process.env.NODE_ENV];
    if (nodeEnvs.length && nodeEnvs.every((e) => e !== 'production')) {
      this.out('Warning: NODE_ENV is not "production" for this run; frameworks then skip caches and the profile ranks development-only work. Add "env": {"NODE_ENV": "production"} to the configuration.', 'stderr');
    }
    let lastStage = '';
    this.running = this.controller.execute(request, {
      token: this.cancel.token, notify: false,
      onProgress: (p) => {
        const line = `${p.message}${p.requestsPerSecond !== undefined && !p.message.includes('req/s') ? ` · ${rps(p.requestsPerSecond)} req/s` : ''}`;
        // Stage changes always; live figures at most once per second (one per progress tick).
        if (p.stage !== lastStage || p.requestsPerSecond !== undefined) this.out(line);
        lastStage = p.stage;
      },
    }).then(({ result, summary }) => {
      this.out(summary, 'important');
      for (const w of result.warnings) this.out(`Warning (${w.code}): ${w.message}`, 'stderr');
      if ('profilePath' in result) this.out(`Profile: ${result.profilePath}`);
      if (result.kind === 'compare' && result.profiles) this.out(`Profiles: A ${result.profiles.a.path}, B ${result.profiles.b.path} (differential flamegraph in the Hotpath Flamegraph panel)`);
    }, (err) => {
      this.out(isHotpathError(err, ErrorCode.Cancelled) ? 'Cancelled; the app was stopped.' : `Failed: ${errorMessage(err)}`, 'stderr');
    }).finally(() => this.sendEvent(new TerminatedEvent()));
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.sendResponse(response);
  }

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: [] };
    this.sendResponse(response);
  }

  protected override async terminateRequest(response: DebugProtocol.TerminateResponse): Promise<void> {
    await this.stopRun();
    this.sendResponse(response);
  }

  protected override async disconnectRequest(response: DebugProtocol.DisconnectResponse): Promise<void> {
    await this.stopRun();
    this.sendResponse(response);
  }

  /** Cancels the run and waits until it unwound (the app's process group is gone by then). */
  private async stopRun(): Promise<void> {
    this.cancel.cancel();
    await this.running?.catch(() => undefined);
  }
}
