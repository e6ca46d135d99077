/**
 * V8's view of the hot code — tier, (de)optimizations, inlining — collected in the same run as the
 * CPU profile (collector.ts), saved beside it (sidecar.ts) and joined to its functions (join.ts).
 */
export type * from './types';
export { V8Collector, type V8CollectorOptions, type V8Mode } from './collector';
export { joinV8Signals, type JoinOptions, type V8Join } from './join';
export { readV8Sidecar, writeV8Sidecar, v8SidecarPath } from './sidecar';
export { formatV8Summary, deoptCount, topDeoptReason } from './format';
export { addV8FlameExtras } from './flameExtras';
export { explainDeopt, explainNotOptimized, explainNotInlined, protectorFindings } from './explain';
export { isV8TraceLine } from './inliningTrace';
export { tierCode } from './statusBits';
export { installExitHook } from './exitHook';
