/** A Node.js binary on this machine, and where Hotpath found it. */
export interface NodeRuntime {
  /** Without the "v": "22.23.3". */
  version: string;
  /** Absolute path of the `node` executable. */
  path: string;
  /** Where it was found: the PATH, a version manager's folder, Hotpath's own cache (or just installed there). */
  source: RuntimeSource;
}

export type RuntimeSource = 'path' | 'current' | 'nvm' | 'fnm' | 'volta' | 'asdf' | 'n' | 'nodenv' | 'hotpath-cache' | 'installed' | 'given';
