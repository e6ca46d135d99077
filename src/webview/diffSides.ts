/** The differential flamegraph's header text: which side is which (label, Node version, git revision, environment). */
import type { DiffSide, FlamePayload } from '../shared/flame/payload';
import { ms } from './format';

/** "HEAD~1 (1a2b3c4) · Node 22.23.3 · NODE_ENV=development": what is known of a side, each fact once. */
export function describeSide(side: DiffSide): string {
  const facts = [
    side.nodeVersion ? `Node ${side.nodeVersion.replace(/^v/, '')}` : '',
    side.gitRev ? side.gitRev.slice(0, 7) : '',
    ...Object.entries(side.env ?? {}).map(([k, v]) => `${k}=${v}`),
    ...(side.nodeArgs ?? []),
  ].filter((f) => f && !side.label.includes(f));
  return [side.label, ...facts, ...(side.threads ? [threadsText(side.threads)] : [])].join(' · ');
}

/** What a diff over threads covers on a side: `all 3 threads (main + 2 workers)`, `main thread only (no workers)`. */
function threadsText(threads: readonly string[]): string {
  if (threads.length <= 1) return `${threads[0] ?? 'main'} thread only (no workers)`;
  const workers = threads.filter((t) => /\bworker \d+/.test(t)).length;
  const others = threads.length - workers - 1;
  const parts = [workers ? `${workers} worker${workers > 1 ? 's' : ''}` : '', others > 0 ? `${others} other process${others > 1 ? 'es' : ''}` : ''].filter(Boolean);
  return `all ${threads.length} threads (main + ${parts.join(' + ')})`;
}

/** The header's summary of a differential payload; undefined for a plain one. `amount`: ms, or bytes for an allocation view. */
export function diffSummary(payload: FlamePayload, amount: (us: number) => string = ms): string | undefined {
  const diff = payload.diff;
  if (!diff) return undefined;
  if (!diff.sides) return `before ${amount(diff.before.durationUs)} (${diff.before.title}) → after ${amount(payload.meta.durationUs)}`;
  return `before: ${describeSide(diff.sides.before)} (${amount(diff.before.durationUs)}) → after: ${describeSide(diff.sides.after)} (${amount(payload.meta.durationUs)})`;
}
