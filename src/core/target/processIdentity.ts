/**
 * Before Hotpath signals a process it did not start (attach by PID sends SIGUSR1, whose default action
 * ends most programs), it makes sure the process is Node.js, and neither Hotpath itself nor one of the
 * processes that started it (`npx hotpath`, the shell's npm). Only that one PID is ever signalled, never
 * a group. Linux reads /proc; elsewhere `ps` answers the same questions.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ErrorCode, HotpathError } from '../common/errors';

export interface ProcessIdentity {
  pid: number;
  /** Parent PID and process group id, when readable. */
  ppid: number | null;
  pgid: number | null;
  /** The executable (Linux: /proc/PID/exe) or the command name, when readable. */
  executable: string | null;
  /** argv[0] as the process sees it, when readable. */
  argv0: string | null;
}

function fromProc(pid: number | 'self'): ProcessIdentity | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ppid = Number(fields[1]);
    const pgid = Number(fields[2]);
    let executable: string | null = null;
    try { executable = fs.readlinkSync(`/proc/${pid}/exe`); } catch { executable = null; }
    let argv0: string | null = null;
    try { argv0 = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] || null; } catch { argv0 = null; }
    return { pid: pid === 'self' ? process.pid : pid, ppid: Number.isFinite(ppid) ? ppid : null, pgid: Number.isFinite(pgid) ? pgid : null, executable, argv0 };
  } catch {
    return null;
  }
}

function fromPs(pid: number): ProcessIdentity | null {
  try {
    const out = execFileSync('ps', ['-o', 'ppid=,pgid=,comm=', '-p', String(pid)], { encoding: 'utf8', timeout: 5000 }).trim();
    const m = /^(\d+)\s+(\d+)\s+(.*)$/.exec(out);
    return m ? { pid, ppid: Number(m[1]), pgid: Number(m[2]), executable: m[3], argv0: m[3] } : null;
  } catch {
    return null;
  }
}

export function identify(pid: number): ProcessIdentity | null {
  return process.platform === 'linux' ? fromProc(pid) : fromPs(pid);
}

/** `node`, `nodejs`, `node20`, `node-22.1.0`…, or this very executable. */
export function isNodeExecutable(file: string | null): boolean {
  if (!file) return false;
  const real = file.replace(/ \(deleted\)$/, '');
  if (real === process.execPath) return true;
  return /^node(js)?([-_.]?v?\d+(\.\d+)*)?(\.exe)?$/i.test(path.basename(real));
}

/** This process's parent, grandparent, … up to init. */
export function ancestorsOfSelf(): number[] {
  const out: number[] = [];
  let pid = process.ppid;
  while (pid > 1 && out.length < 64 && !out.includes(pid)) {
    out.push(pid);
    pid = identify(pid)?.ppid ?? 0;
  }
  return out;
}

/**
 * Throws unless `pid` may be signalled: a Node.js process, not Hotpath itself nor one of its launchers.
 * (PID ≤ 1 is refused by the caller: 0 and negative numbers name process groups, 1 is init.)
 */
export function checkSignalTarget(pid: number): ProcessIdentity {
  if (pid === process.pid) throw new HotpathError(ErrorCode.AttachFailed, `PID ${pid} is Hotpath itself. Pass the PID of the Node.js app.`);
  const target = identify(pid);
  if (!target) {
    throw new HotpathError(ErrorCode.AttachFailed, `Could not tell what PID ${pid} runs (its /proc entry or \`ps\` line is unreadable), so Hotpath does not signal it. Run Hotpath as the same user as the app, or attach by inspector port (--attach 127.0.0.1:PORT).`);
  }
  if (ancestorsOfSelf().includes(pid)) {
    throw new HotpathError(ErrorCode.AttachFailed, `PID ${pid} is one of the processes that started Hotpath (e.g. npx or npm running it); Hotpath does not signal its own launchers. Pass the PID of the Node.js app.`);
  }
  if (!isNodeExecutable(target.executable) && !isNodeExecutable(target.argv0)) {
    throw new HotpathError(ErrorCode.AttachFailed, `PID ${pid} is not a Node.js process (it runs ${target.executable ?? target.argv0 ?? 'an unknown program'}). Hotpath sends SIGUSR1 only to Node.js processes: to most other programs it is fatal. Pass the PID of the Node.js app (\`ps aux | grep node\`).`);
  }
  return target;
}
