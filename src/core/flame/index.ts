/**
 * Flamegraph data from the profile model: pure functions, no IO, no DOM. The tree algorithms shared
 * with the webview (filters, sandwich, flame-chart spans) live in src/shared/flame.
 */
export { aggregate, type Aggregated } from './aggregate';
export { buildTimeline, DEFAULT_MAX_RUNS } from './timeline';
export { beforeSelfTimes, type KeyedTree } from './diff';
export { buildFlamePayload, buildDiffPayload, type DiffOptions, type FlameOptions } from './payload';
export { normalizeTree, filterTree, outermostFramesOf, type FrameTree } from '../../shared/flame/tree';
export { sandwich, type Sandwich } from '../../shared/flame/sandwich';
export { timelineSpans, runAt, type Spans } from '../../shared/flame/timeline';
export { encodePayload, decodePayload, type FlamePayload } from '../../shared/flame/payload';
