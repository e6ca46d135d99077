/** What Hotpath tells its process guard (dist/hotpath-guard.js, see guard.ts) in its one argument. */
export interface GuardSpec {
  command: string[];
  cwd: string;
  /** Through the shell (a `--prepare` string). */
  shell: boolean;
  /** Variables the guard needed and the command must not get (ELECTRON_RUN_AS_NODE in VS Code). */
  unsetEnv: string[];
  /** Every process of the command carries `idEnv=id` (see envProcesses.ts). */
  idEnv: string;
  id: string;
  /** Between SIGTERM and SIGKILL when Hotpath is gone. */
  graceMs: number;
}

/** The variable that marks the processes of one guarded command. */
export const GUARD_ID_ENV = 'HOTPATH_GUARD_ID';

export const GUARD_FILE_NAME = 'hotpath-guard.js';
