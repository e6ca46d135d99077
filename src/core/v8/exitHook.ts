/**
 * Script mode: a script's process is gone once it exits, and with it the functions whose tiers we
 * want. So before it runs, a `process.on('exit')` hook is installed that calls an inspector binding
 * (Runtime.addBinding: it tells us, over the session, that the exit has begun) and then blocks in
 * inspector.waitForDebugger() — a nested inspector message loop in which our queries still run.
 * `onExit` stops the profiler first (so the queries are not in the profile), collects, and the process
 * is always released with Runtime.runIfWaitingForDebugger, whatever happened.
 */
import type { Disposable } from '../common/disposable';
import type { CdpSession } from '../inspector/cdpClient';

const BINDING = '__hotpathV8Exit';

const HOOK = `process.on('exit', function hotpathV8ExitHook() {
  try {
    globalThis.${BINDING}('exit');
    process.getBuiltinModule('inspector').waitForDebugger();
  } catch { /* no inspector any more: nothing to wait for */ }
}), true`;

export async function installExitHook(session: CdpSession, onExit: () => Promise<void>): Promise<Disposable> {
  let fired = false;
  const sub = session.onEvent('Runtime.bindingCalled', ({ name }: { name: string }) => {
    if (name !== BINDING || fired) return;
    fired = true;
    void onExit().catch(() => undefined).finally(() => void session.trySend('Runtime.runIfWaitingForDebugger'));
  });
  await session.send('Runtime.addBinding', { name: BINDING });
  const r = await session.send<{ exceptionDetails?: unknown }>('Runtime.evaluate', { expression: HOOK, returnByValue: true, silent: true });
  if (r.exceptionDetails) { sub.dispose(); throw new Error('could not install the exit hook'); }
  return sub;
}
