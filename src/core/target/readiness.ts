import { type CancellationToken, neverCancelled } from '../common/cancellation';
import { cancelledError, ErrorCode, HotpathError } from '../common/errors';
import { DisposableStore } from '../common/disposable';
import type { LaunchedTarget } from './launcher';
import type { ListeningReport, ProcessReport, TargetReport } from './reports';

export interface HttpReadyOptions {
  /** The port to load; when unset, the first port any node process of the target listens on. */
  port?: number;
  timeoutMs: number;
  token?: CancellationToken;
}

/**
 * With --port/--url set, the app already listens on another port: give it this long to open ours too
 * (a metrics port first, say), then fail with the port it did take instead of waiting the full timeout.
 */
const OTHER_PORT_GRACE_MS = 3000;

export interface HttpReady {
  port: number;
  /** The node process that listens: the one to profile. */
  process: ProcessReport;
}

/**
 * Waits until a node process of the target listens on a TCP port (reported by the preload), and
 * turns every way that can fail into an error that says what happened and what to do.
 */
export function waitForHttpReady(target: LaunchedTarget, options: HttpReadyOptions): Promise<HttpReady> {
  const token = options.token ?? neverCancelled;
  const seconds = Math.round(options.timeoutMs / 1000);
  return new Promise<HttpReady>((resolve, reject) => {
    const subs = new DisposableStore();
    let listening: ListeningReport | undefined;
    let otherPortTimer: NodeJS.Timeout | undefined;
    const finish = (err: Error | undefined, value?: HttpReady) => {
      subs.dispose();
      if (err) reject(err); else resolve(value!);
    };
    const check = (report: TargetReport | undefined) => {
      if (report?.type === 'listen-error' && report.code === 'EADDRINUSE') {
        const port = report.port ?? options.port;
        return finish(new HotpathError(ErrorCode.PortInUse,
          `The app could not listen: port ${port} is already in use (EADDRINUSE). Stop the other process (find it with \`lsof -i :${port}\` or \`ss -ltnp\`) or start the app on another port.${target.output.forMessage()}`));
      }
      if (report?.type === 'listening' && (options.port === undefined || report.port === options.port)) listening ??= report;
      if (report?.type === 'listening' && options.port !== undefined && report.port !== options.port && !otherPortTimer) {
        const other = report.port;
        otherPortTimer = setTimeout(() => finish(new HotpathError(ErrorCode.TargetNeverListened,
          `\`${target.commandLine}\` listens on port ${other}, not on port ${options.port} (from --port or --url), so there is nothing to load there. Pass --port ${other} (or a --url on port ${other}), or start the app on port ${options.port} (e.g. --env PORT=${options.port}).${target.output.forMessage()}`)), OTHER_PORT_GRACE_MS);
        subs.add({ dispose: () => clearTimeout(otherPortTimer) });
      }
      if (!listening) return;
      const proc = target.processes.get(listening.pid);
      if (!proc) return; // the process line is written first; wait for the reader to catch up
      if (!proc.inspectorUrl) {
        return finish(new HotpathError(ErrorCode.InspectorUnavailable,
          `The app listens on port ${listening.port}, but its inspector could not be opened: ${proc.inspectorError ?? 'unknown reason'}. Hotpath needs the V8 inspector on 127.0.0.1; remove any --inspect flags or policies that disable it.`));
      }
      finish(undefined, { port: listening.port, process: proc });
    };
    subs.add(target.onReport(check));
    subs.add(target.onProcess(() => check(undefined)));
    const timer = setTimeout(() => {
      target.reader.poll();
      const ports = target.reader.reports.filter((r): r is ListeningReport => r.type === 'listening').map((r) => r.port);
      const saw = ports.length ? ` It listened on ${ports.join(', ')}, not on ${options.port}.` : '';
      const nodeSeen = target.processes.size > 0 ? '' : ' No node process of the command started — is it a Node.js app?';
      finish(new HotpathError(ErrorCode.TargetNeverListened,
        `\`${target.commandLine}\` did not listen on ${options.port ? `port ${options.port}` : 'a TCP port'} within ${seconds} s.${saw}${nodeSeen} If it needs longer to start, raise --ready-timeout; if it is a script rather than a server, use --script.${target.output.forMessage()}`));
    }, options.timeoutMs);
    subs.add({ dispose: () => clearTimeout(timer) });
    subs.add(token.onCancellationRequested(() => finish(cancelledError())));
    target.exited.then(() => {
      target.reader.poll(); // a report written just before exit still counts
      for (const r of target.reader.reports) check(r);
      finish(new HotpathError(ErrorCode.TargetExited,
        `\`${target.commandLine}\` ${target.describeExit()} before it listened on ${options.port ? `port ${options.port}` : 'a port'}. Fix the error below and run again.${target.output.forMessage()}`));
    });
    for (const r of target.reader.reports) check(r);
  });
}
