/** `hotpath startup` for people: the report model (src/core/report/startup.ts) as the terminal shows it. */
import type { StartupResult } from '../core/workflow/startup';
import type { StartupVariantsResult } from '../core/workflow/startupCompare';
import { renderTerminal } from '../core/report/render/terminal';
import { startupReport, startupVariantsReport } from '../core/report/startup';

export function renderStartup(r: StartupResult, cwd: string): string {
  return renderTerminal(startupReport(r, { cwd }), { cwd });
}

export function renderStartupVariants(r: StartupVariantsResult): string {
  return renderTerminal(startupVariantsReport(r), { cwd: '' });
}
