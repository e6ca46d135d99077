/**
 * Written profiles for the differential view's tests: a known change, where a recording of a short run on a
 * loaded machine would make the colours random (a sample after a long deschedule carries that whole gap;
 * CI once drew the faster function red).
 */
import * as fs from 'node:fs';

/**
 * A V8 CPU profile of diff-app.js's shape (main loop → parseInput, renderOutput) with the given self
 * times, sampled every 1 ms, the two functions alternating in 10 ms runs.
 */
export function diffProfile(out: string, parseMs: number, renderMs: number): string {
  const frame = (id: number, functionName: string, lineNumber: number, children: number[] = []) => ({
    id, callFrame: { functionName, scriptId: '1', url: 'file:///app/diff-app.js', lineNumber, columnNumber: 0 }, hitCount: 0, children,
  });
  const nodes = [
    { ...frame(1, '(root)', -1, [2]), callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 } },
    frame(2, '', 0, [3, 4]),
    frame(3, 'parseInput', 7),
    frame(4, 'renderOutput', 13),
  ];
  const samples: number[] = [];
  for (let p = parseMs, r = renderMs; p > 0 || r > 0; ) {
    for (let k = 0; k < 10 && p > 0; k++, p--) samples.push(3);
    for (let k = 0; k < 10 && r > 0; k++, r--) samples.push(4);
  }
  for (const id of samples) nodes[id - 1].hitCount++;
  const timeDeltas = samples.map(() => 1000);
  fs.writeFileSync(out, JSON.stringify({ nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas }));
  return out;
}
