import { type CancellationToken } from '../common/cancellation';
import { type Logger } from '../common/logger';
import { launchTarget, type LaunchedTarget } from '../target/launcher';
import { waitForHttpReady, type HttpReady } from '../target/readiness';
import { isPortAccepting } from '../target/portCheck';
import { ErrorCode, HotpathError } from '../common/errors';

export interface TargetCommand {
  command: string[];
  cwd: string;
  env?: Record<string, string | undefined>;
  /** The port to load; found from the app's first listen when unset. */
  port?: number;
  readyTimeoutMs?: number;
}

/**
 * Starts an HTTP target, waits until it listens, runs `body`, and stops the whole process tree
 * afterwards whatever happened: success, error, timeout or cancellation. On cancellation every step
 * of the body (load, readiness, inspector) rejects promptly, so the body unwinds and closes its
 * inspector session first — an app with a debugger attached waits at exit for it to disconnect.
 */
export async function withHttpTarget<T>(
  spec: TargetCommand,
  deps: { token: CancellationToken; logger: Logger },
  body: (target: LaunchedTarget, ready: HttpReady) => Promise<T>,
): Promise<T> {
  if (spec.port !== undefined && await isPortAccepting(spec.port)) {
    throw new HotpathError(ErrorCode.PortInUse,
      `Port ${spec.port} is already in use before the app started, so load would go to another process. Stop whatever listens there (\`lsof -i :${spec.port}\` or \`ss -ltnp\`) or choose another --port.`);
  }
  const target = await launchTarget({ command: spec.command, cwd: spec.cwd, env: spec.env, mode: 'http', logger: deps.logger }, deps.token);
  try {
    const ready = await waitForHttpReady(target, { port: spec.port, timeoutMs: spec.readyTimeoutMs ?? 30_000, token: deps.token });
    deps.logger.info(`App ready: PID ${ready.process.pid} listens on port ${ready.port}`);
    return await body(target, ready);
  } finally {
    await target.stop();
  }
}
