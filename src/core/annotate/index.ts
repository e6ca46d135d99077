/**
 * What an editor shows over source files after a profile: per file, the hot functions (CodeLens above
 * their declaration) and the hot lines (heat, after-line label, hover). Built once from the profile model
 * and the analysis, keyed by the display file (the original source when source-mapped), so an editor
 * layer only looks things up. Pure: no IO, no vscode.
 */
export { buildAnnotations, type AnnotationOptions } from './build';
export type { Annotations, FileAnnotations, FunctionAnnotation, LineAnnotation, CallerShare, CalleeShare, DeoptAnnotation } from './types';
export { runtimeAnnotations, allocationHeat, type AllocationAnnotation, type BlockedAnnotation, type RuntimeFileAnnotations } from './runtime';
