/**
 * dist/hotpath-guard.js: the watchdog of a command Hotpath runs to completion for the user — a
 * `--prepare` step, a revision's dependency install, the `npm install` of a Node.js version. Such a
 * command has no preload, so nothing in it notices when Hotpath is gone; this does.
 *
 * Hotpath starts the guard as the leader of a new process group and the guard starts the command in
 * that group. Hotpath holds the only write end of the guard's stdin: when Hotpath disappears (SIGKILL,
 * a crash, an editor window closing), the system closes it, the guard reads end-of-file and stops the
 * command — SIGTERM to the group and to every process carrying the run's variable (one that left the
 * group), SIGKILL after the grace period — then itself. While Hotpath lives, Hotpath does the
 * stopping (guardedCommand.ts): the guard ignores the signals meant for the command and ends with it,
 * writing the command's exit status to fd 3.
 * Self-contained on purpose: Node's own modules only.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { processesWithEnv } from './envProcesses';
import type { GuardSpec } from './guardSpec';

function main(): void {
  const spec = JSON.parse(process.argv[2] ?? '{}') as GuardSpec;
  const env = { ...process.env };
  for (const name of spec.unsetEnv) delete env[name];
  // Signals sent to the group are for the command; Hotpath ends the guard with SIGKILL if it must.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => undefined);

  const report = (value: object) => { try { fs.writeSync(3, JSON.stringify(value) + '\n'); } catch { /* Hotpath is gone */ } };
  let orphaned = false;
  // fd 3 (the status channel) is replaced by /dev/null in the command: it must hold no copy of it.
  const child = spawn(spec.command[0], spec.command.slice(1), { cwd: spec.cwd, env, shell: spec.shell, stdio: ['ignore', 'inherit', 'inherit', 'ignore'], windowsHide: true });
  child.once('error', (err: NodeJS.ErrnoException) => { report({ error: err.code ?? err.message }); process.exit(0); });

  const send = (sig: NodeJS.Signals) => {
    if (process.platform === 'win32') { child.kill(sig); return; }
    try { process.kill(-process.pid, sig); } catch { /* no group */ }
    for (const pid of processesWithEnv(spec.idEnv, spec.id)) { try { process.kill(pid, sig); } catch { /* gone */ } }
  };
  // The last act: SIGKILL to the group ends what is left of it, this process included.
  const finish = () => { send('SIGKILL'); process.exit(1); };

  child.once('exit', (code, signal) => {
    if (orphaned) return finish();
    report({ code, signal });
    process.exit(0);
  });

  const onOrphaned = () => {
    if (orphaned) return;
    orphaned = true;
    send('SIGTERM');
    setTimeout(finish, spec.graceMs);
  };
  process.stdin.on('end', onOrphaned);
  process.stdin.on('close', onOrphaned);
  process.stdin.on('error', onOrphaned);
  process.stdin.resume();
}

main();
