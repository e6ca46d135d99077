/** `hotpath bench` for people: the report model (src/core/report/bench.ts) as the terminal shows it. */
import type { BenchResult } from '../core/workflow/bench';
import { benchReport } from '../core/report/bench';
import { renderTerminal } from '../core/report/render/terminal';

export function renderBench(r: BenchResult, cwd: string): string {
  return renderTerminal(benchReport(r, { cwd }), { cwd });
}
