/** The blocking episodes as a lane of the flame chart: when the loop was held, for how long, by which line. */
import type { FlamePayload } from '../../shared/flame/payload';
import { formatMs } from '../../shared/text/numbers';
import type { BlockingAnalysis } from './blocking';

export function addBlockingLane(payload: FlamePayload, blocking: BlockingAnalysis | undefined): void {
  const lane = blocking?.lane;
  if (!lane || lane.startUs.length === 0) return;
  const spans: number[] = [];
  const labels: string[] = [];
  for (let k = 0; k < lane.startUs.length; k++) {
    spans.push(lane.startUs[k], lane.endUs[k]);
    labels.push(`Event loop blocked ${formatMs((lane.endUs[k] - lane.startUs[k]) / 1000)}: ${lane.labels[k]}`);
  }
  payload.meta.lanes = [...(payload.meta.lanes ?? []), { title: `Loop blocked ≥ ${formatMs(blocking!.thresholdMs)}`, spans, labels }];
}
