import { execFile } from 'node:child_process';
import * as path from 'node:path';

export interface NodeProcess {
  pid: number;
  /** The full command line, as ps shows it. */
  command: string;
}

/**
 * Running Node processes of this user, for an attach picker (Linux/macOS `ps`). Excludes this process
 * and editor/tooling hosts, which are Node too but never what a user wants to profile.
 */
export function listNodeProcesses(): Promise<NodeProcess[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-x', '-o', 'pid=,args='], { maxBuffer: 8 * 1024 * 1024 }, (err, stdout) => {
      if (err) { resolve([]); return; }
      const list: NodeProcess[] = [];
      for (const line of stdout.split('\n')) {
        const m = /^\s*(\d+)\s+(.+)$/.exec(line);
        if (!m) continue;
        const pid = Number(m[1]);
        const command = m[2];
        const exe = path.basename(command.split(/\s+/)[0]);
        if (pid === process.pid || !/^node(js)?(\d+)?$/.test(exe)) continue;
        if (/extensionHost|code-server|vscode-server|bootstrap-fork|tsserver|eslintServer|typingsInstaller|--type=/.test(command)) continue;
        list.push({ pid, command });
      }
      resolve(list);
    });
  });
}
