/**
 * What a side of a comparison is diffed as. Its own module, with types only from compare.ts: the
 * standalone HTML report needs it, and importing it from compare.ts ran the whole measuring stack (the
 * load generator, the inspector client) in `hotpath report` (bench/suites/cli.js lists what each
 * command runs).
 */
import type { Attribution } from '../attribution/types';
import type { ProfileModel } from '../profile/types';
import type { V8FunctionSignals } from '../v8/types';
import type { SideProfile } from './compare';

/** What a side's diff is made of: every thread when the comparison covers threads, else the main thread. */
export function diffSideOf(p: SideProfile): { model: ProfileModel; attribution?: Attribution; v8Functions?: ReadonlyMap<number, V8FunctionSignals>; projectRoot?: string } {
  return p.threads ? { model: p.threads.model, attribution: p.threads.attribution, v8Functions: p.threads.v8Functions, projectRoot: p.projectRoot } : p;
}
