/** The CLI's text for profiles, reports, baselines and verify: the report model (src/core/report) as the terminal shows it. */
import type { Warning } from '../core/common/warnings';
import type { LoadResult } from '../core/load/result';
import type { ThreadHotspot } from '../core/workflow/analyze';
import type { BaselineResult, VerifyResult } from '../core/workflow/baseline';
import type { ProfileResult } from '../core/workflow/profileWithLoad';
import type { ScriptResult } from '../core/workflow/profileScript';
import type { ReportResult } from '../core/workflow/report';
import type { PreflightCheck } from '../core/workflow/preflight';
import { hotspotsTable } from '../core/report/analysis';
import { checksSection, warningsSection } from '../core/report/notes';
import { inlineTerminal, renderSectionsTerminal, renderTerminal } from '../core/report/render/terminal';
import { loadLine as loadInline } from '../core/report/runtime';
import { baselineReport, profileReport, reportReport, verifyReport } from '../core/report/runs';

/** `GET /api/stores · 2,323 req/s ±8.8% second to second · p50 …`: the spread is the stability check's. */
export function loadLine(load: LoadResult): string {
  return inlineTerminal(loadInline(load), '');
}

export function hotspotTable(hotspots: ThreadHotspot[], cwd: string): string {
  return renderSectionsTerminal([{ id: 'hotspots', blocks: [hotspotsTable(hotspots)], gap: false }], { cwd }).replace(/\n$/, '');
}

/** The production-parity checklist. */
export function renderChecks(title: string, checks: PreflightCheck[] | undefined): string {
  const s = checksSection(title, checks);
  return s ? renderSectionsTerminal([s], { cwd: '' }) : '';
}

export function warningsBlock(warnings: Warning[]): string {
  const s = warningsSection(warnings);
  return s ? renderSectionsTerminal([s], { cwd: '' }) : '';
}

export function renderProfile(r: ProfileResult | ScriptResult, cwd: string): string {
  return renderTerminal(profileReport(r, { cwd }), { cwd });
}

export function renderReport(r: ReportResult, cwd: string): string {
  return renderTerminal(reportReport(r, { cwd }), { cwd });
}

export function renderBaseline(r: BaselineResult, cwd: string): string {
  return renderTerminal(baselineReport(r, { cwd }), { cwd });
}

/** `compareCommand`: the `hotpath compare` line to suggest when the baseline ran on another commit. */
export function renderVerify(r: VerifyResult, compareCommand?: string): string {
  return renderTerminal(verifyReport(r, { cwd: '', compareCommand }), { cwd: '' });
}
