/** Which harness a benchmark file is written for, read from its imports. Pure. */
import type { BenchHarness } from './benchRun';

const NODE_BENCH = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]node:bench['"]/;
const TINYBENCH = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*)['"]tinybench['"]/;

export function detectHarness(source: string): BenchHarness | undefined {
  if (NODE_BENCH.test(source)) return 'node:bench';
  if (TINYBENCH.test(source)) return 'tinybench';
  return undefined;
}

/** The lines of `bench.add('name', …)` (tinybench) or `bench('name', …)` (node:bench) calls, for CodeLens. */
export function taskLines(source: string): Array<{ name: string; line: number }> {
  const out: Array<{ name: string; line: number }> = [];
  const lines = source.split('\n');
  const re = /(?:\.add|\bbench)\(\s*(['"`])((?:(?!\1).)+)\1/g;
  lines.forEach((text, i) => {
    for (const m of text.matchAll(re)) out.push({ name: m[2], line: i + 1 });
  });
  return out;
}
