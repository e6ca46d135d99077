/**
 * One line per side of a comparison for the log (CLI --verbose, VS Code's output channel): what proves
 * what the side ran — its folder, the file the command starts, the revision, the node binary and where
 * its dependencies came from. No imports: the extension's first bundle uses it without the engine.
 */
export interface SideFacts {
  key: string;
  label: string;
  cwd: string;
  entry: string | null;
  gitRev: string | null;
  gitDirty: boolean | null;
  nodePath: string | null;
  dependencies: string;
}

export function sideSummary(side: SideFacts): string {
  const git = side.gitRev ? `git ${side.gitRev.slice(0, 10)}${side.gitDirty ? ' + uncommitted changes' : ''}` : 'not in git';
  return `Side ${side.key.toUpperCase()} "${side.label}": runs ${side.entry ?? '(no file named by the command)'} in ${side.cwd}; ${git}; node ${side.nodePath ?? '(not found on PATH)'}; dependencies: ${side.dependencies}`;
}
