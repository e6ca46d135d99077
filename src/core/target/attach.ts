import CDP from 'chrome-remote-interface';
import { type CancellationToken, delay, neverCancelled } from '../common/cancellation';
import { errorMessage, ErrorCode, HotpathError } from '../common/errors';
import { type Logger, silentLogger } from '../common/logger';
import { CdpClient } from '../inspector/cdpClient';
import { assertLoopbackInspectorUrl } from '../inspector/loopback';
import { isAlive } from './processTree';
import { checkSignalTarget } from './processIdentity';
import { onEmergencyStop } from '../common/emergency';
import { DISABLE_FLAGS } from '../v8/flags';
import { setFlagsExpression } from '../v8/targetScripts';

export type AttachSpec =
  | { inspectorUrl: string }
  | { inspectorPort: number }
  /** SIGUSR1 opens the inspector of a running process on its --inspect-port (9229 unless set). */
  | { pid: number; inspectorPort?: number };

export interface AttachedProcess {
  client: CdpClient;
  pid: number;
  nodeVersion: string;
  nodeEnv: string | null;
  maglev: boolean;
  /** Hotpath opened the inspector (SIGUSR1): detach() closes it again. */
  openedInspector: boolean;
  /**
   * Leaves the process as it was found: disconnects, and closes the inspector if Hotpath opened it
   * (an open inspector lets any local process run code in the app).
   */
  detach(): Promise<void>;
}

/*
 * Closing the inspector Hotpath opened. The app must close the WebSocket alone: when the app's inspector
 * shuts down (process._debugEnd) while our close frame arrives, Node's WsHandler writes two close frames
 * and frees itself after the first, and the second one's write callback (OnCloseFrameWritten) crashes
 * the app with SIGSEGV (seen on Node 20: 4 crashes in 177 attaches here, 0 in 180 with this order). So: ask the app to close, wait
 * until it has hung up, and only then close our end (a no-op by then).
 */
/** Closes the target's inspector once our evaluation has returned (process._debugEnd: Node 20–26). */
const CLOSE_INSPECTOR = `setTimeout(() => { try { process._debugEnd(); } catch {} }, 0), true`;
/**
 * When Hotpath is being stopped hard and cannot wait: the app closes its inspector a second later, when
 * our socket is gone (a handler without a socket is freed at once, with no close frame to write).
 */
const CLOSE_INSPECTOR_AFTER_US = `setTimeout(() => { try { process._debugEnd(); } catch {} }, 1000).unref(), true`;
/** How long the app gets to hang up (its event loop may be busy with a request). */
const HANG_UP_MS = 5000;

const DEFAULT_INSPECT_PORT = 9229;

async function listTargets(port: number): Promise<Array<{ webSocketDebuggerUrl?: string; type?: string }>> {
  return CDP.List({ host: '127.0.0.1', port }) as Promise<Array<{ webSocketDebuggerUrl?: string; type?: string }>>;
}

async function urlFromPort(port: number, token: CancellationToken, waitMs: number): Promise<string> {
  const deadline = Date.now() + waitMs;
  let lastError: unknown;
  for (;;) {
    try {
      const targets = await listTargets(port);
      const url = targets.find((t) => t.webSocketDebuggerUrl)?.webSocketDebuggerUrl;
      if (url) return url;
      lastError = new Error('it lists no debuggable target');
    } catch (err) { lastError = err; }
    if (Date.now() >= deadline) break;
    await delay(100, token);
  }
  throw new HotpathError(ErrorCode.InspectorUnavailable,
    `No Node.js inspector answers on 127.0.0.1:${port} (${errorMessage(lastError)}). Start the app with --inspect=127.0.0.1:${port}, or attach by PID to a process started with --inspect-port=${port}.`);
}

/** Reads what the workflow needs to know about the attached process through the inspector itself. */
async function describe(client: CdpClient): Promise<{ pid: number; nodeVersion: string; nodeEnv: string | null; maglev: boolean }> {
  const expression = 'JSON.stringify({ pid: process.pid, nodeVersion: process.version, nodeEnv: process.env.NODE_ENV ?? null, maglev: Boolean(process.config.variables.v8_enable_maglev) })';
  const { result, exceptionDetails } = await client.send('Runtime.evaluate', { expression, returnByValue: true });
  if (exceptionDetails || typeof result?.value !== 'string') {
    throw new HotpathError(ErrorCode.AttachFailed, 'The inspector answered, but it is not a Node.js process (process.pid is not defined). Attach to the Node.js app instead.');
  }
  return JSON.parse(result.value);
}

/** Connects to an already running Node.js process over its inspector (loopback only). */
export async function attachToProcess(spec: AttachSpec, options: { token?: CancellationToken; logger?: Logger } = {}): Promise<AttachedProcess> {
  const token = options.token ?? neverCancelled;
  const logger = options.logger ?? silentLogger;
  let url: string;
  let openedInspector = false;
  if ('inspectorUrl' in spec) {
    url = assertLoopbackInspectorUrl(spec.inspectorUrl).toString();
  } else if ('inspectorPort' in spec && !('pid' in spec)) {
    url = await urlFromPort(spec.inspectorPort, token, 1000);
  } else {
    const { pid } = spec as { pid: number; inspectorPort?: number };
    const port = (spec as { inspectorPort?: number }).inspectorPort ?? DEFAULT_INSPECT_PORT;
    if (!Number.isInteger(pid) || pid <= 1 || (pid > 1 && !isAlive(pid))) {
      throw new HotpathError(ErrorCode.AttachFailed, pid <= 1 || !Number.isInteger(pid)
        ? `PID ${pid} is not a process Hotpath can attach to (it would signal ${pid === 0 ? 'its own process group' : pid === -1 ? 'every process' : 'init'}). Pass the PID of the Node.js app (\`ps aux | grep node\`).`
        : `No process with PID ${pid} is running. Check the PID (\`ps aux | grep node\`).`);
    }
    // SIGUSR1 stops most programs that are not Node: only a verified Node.js process, never our own group.
    checkSignalTarget(pid);
    // An inspector that is already open (the user's --inspect) is used as it is and left open.
    const already = await urlFromPort(port, token, 0).catch(() => undefined);
    if (already) {
      url = already;
    } else {
      try { process.kill(pid, 'SIGUSR1'); } catch (err) {
        throw new HotpathError(ErrorCode.AttachFailed, `Could not signal PID ${pid} to open its inspector: ${errorMessage(err)}. Run Hotpath as the same user as the app.`);
      }
      openedInspector = true;
      logger.info(`Sent SIGUSR1 to ${pid}; waiting for its inspector on 127.0.0.1:${port}`);
      url = await urlFromPort(port, token, 5000);
    }
  }
  const client = await CdpClient.connect(url, { token, logger });
  try {
    const info = await describe(client);
    if ('pid' in spec && info.pid !== spec.pid) {
      throw new HotpathError(ErrorCode.AttachFailed,
        `The inspector on that port belongs to PID ${info.pid}, not ${spec.pid}: another process already holds the port. Start the app with --inspect-port=<free port> and pass the same port to Hotpath.`);
    }
    // Should Hotpath be stopped hard mid-run, the app it does not own is left as found: V8's tracing
    // off (it may have been switched on), the inspector closed if Hotpath opened it.
    const emergency = onEmergencyStop(() => Promise.all([
      client.trySend('Runtime.evaluate', { expression: setFlagsExpression(DISABLE_FLAGS), silent: true }),
      openedInspector ? client.trySend('Runtime.evaluate', { expression: CLOSE_INSPECTOR_AFTER_US, silent: true }) : undefined,
    ]));
    const detach = async () => {
      emergency.dispose();
      if (openedInspector && !client.isClosed) {
        logger.info(`Closing the inspector Hotpath opened in PID ${info.pid}`);
        await closeInspectorFromTheApp(client, logger);
      }
      await client.close();
    };
    return { client, ...info, openedInspector, detach };
  } catch (err) {
    if (openedInspector) await closeInspectorFromTheApp(client, logger);
    await client.close();
    throw err;
  }
}

/** The app closes its inspector and hangs up; we wait for that rather than close from our end too. */
async function closeInspectorFromTheApp(client: CdpClient, logger: Logger): Promise<void> {
  let sub: { dispose(): void } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const hungUp = new Promise<boolean>((resolve) => {
    sub = client.onDisconnect(() => resolve(true));
    timer = setTimeout(() => resolve(false), HANG_UP_MS);
  });
  try {
    const asked = await client.trySend('Runtime.evaluate', { expression: CLOSE_INSPECTOR, silent: true });
    if (asked === undefined && !client.isClosed) return; // the evaluation failed: nothing will hang up
    if (!client.isClosed && !(await hungUp)) logger.warn(`The app did not close its inspector within ${HANG_UP_MS / 1000} s (its event loop may be blocked); disconnecting from this end`);
  } finally {
    clearTimeout(timer);
    sub?.dispose();
  }
}
