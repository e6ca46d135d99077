import * as vscode from 'vscode';
import { effectiveNodeEnv, type TargetSpec } from '../targets/targetSpec';
import { showWarning } from '../notify';

const DISMISSED = 'hotpath.nodeEnvDismissed';

/**
 * Short enough that all three fit a notification (450 px) untruncated; the message says whom
 * "Don't Ask Again" is for.
 */
export const NODE_ENV_ACTIONS = {
  production: 'Use NODE_ENV=production',
  anyway: 'Run as Is',
  never: "Don't Ask Again",
} as const;

/** The question: what is unset, what that does to a profile, and what each button does. */
export function nodeEnvQuestion(targetName: string, nodeEnv: string | undefined): string {
  const seen = nodeEnv === undefined ? 'without NODE_ENV' : `with NODE_ENV=${nodeEnv}`;
  return `Hotpath: "${targetName}" would run ${seen}, in development mode: frameworks skip caches and add checks that production does not, and the profile would rank that work. ("Don't Ask Again" is for this target.)`;
}

/**
 * Before a run: frameworks (Express, React SSR, template engines) skip caches and add checks unless
 * NODE_ENV=production, so a profile of development mode ranks work production never does. Ask once per
 * run, with a way out per target. Resolves to the target to run (maybe with NODE_ENV set), or undefined
 * when the user closed the warning (the run is cancelled).
 */
export async function confirmNodeEnv(target: TargetSpec, state: vscode.Memento): Promise<TargetSpec | undefined> {
  if (!vscode.workspace.getConfiguration('hotpath.preflight', vscode.Uri.file(target.cwd)).get<boolean>('nodeEnv', true)) return target;
  const nodeEnv = effectiveNodeEnv(target);
  if (nodeEnv === 'production') return target;
  const dismissed = state.get<string[]>(DISMISSED) ?? [];
  if (dismissed.includes(target.name)) return target;
  const choice = await showWarning(nodeEnvQuestion(target.name, nodeEnv), NODE_ENV_ACTIONS.production, NODE_ENV_ACTIONS.anyway, NODE_ENV_ACTIONS.never);
  switch (choice) {
    case NODE_ENV_ACTIONS.production: return { ...target, env: { ...target.env, NODE_ENV: 'production' } };
    case NODE_ENV_ACTIONS.anyway: return target;
    case NODE_ENV_ACTIONS.never:
      await state.update(DISMISSED, [...dismissed, target.name]);
      return target;
    default: return undefined;
  }
}
