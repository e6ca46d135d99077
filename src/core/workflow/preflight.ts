import type { Warning } from '../common/warnings';

export const NODE_ENV_NOT_PRODUCTION = 'NODE_ENV_NOT_PRODUCTION';

/**
 * The most common way a profile lies: the app runs in development mode. Checked against the
 * NODE_ENV the app process itself saw (reported by the preload or read over the inspector).
 */
export function nodeEnvWarning(nodeEnv: string | null | undefined): Warning | undefined {
  if (nodeEnv === 'production') return undefined;
  const seen = nodeEnv ? `is '${nodeEnv}'` : 'is not set';
  return {
    code: NODE_ENV_NOT_PRODUCTION,
    message: `NODE_ENV ${seen} in the app, not 'production'. Frameworks and template engines (Express's view cache, Pug, EJS, React SSR, many loggers) cache compiled templates and skip development checks only in production, so these numbers and hotspots may not be the ones your users hit. Re-run with NODE_ENV=production (CLI: add --env NODE_ENV=production).`,
  };
}
