/**
 * Caveats about a whole profile that change how its numbers should be read (v8-signals §1.6.3).
 */
import type { Warning } from '../common/warnings';
import type { ProfileModel } from './types';

/** Lines where samples pile up when profiling started after a long-running loop was entered. */
const LATE_START_SCRIPTS = new Set(['node:internal/modules/cjs/loader', 'node:internal/timers', 'node:internal/modules/run_main']);

export function profileWarnings(model: ProfileModel): Warning[] {
  const warnings: Warning[] = [];
  const busyUs = model.durationUs - model.idleUs;
  if (model.sampleCount === 0 || model.durationUs <= 0) {
    warnings.push({
      code: 'PROFILE_EMPTY',
      message: 'The profile holds no sampled time: the program ended (or profiling stopped) before the first sample. Profile a longer run.',
    });
    return warnings;
  }

  // Small backward steps (samples out of order): counted as 0, which is what DevTools does; say so.
  let negatives = 0;
  for (let i = 0; i < model.timeDeltas.length; i++) if (model.timeDeltas[i] < 0) negatives++;
  if (negatives > 0) {
    warnings.push({
      code: 'PROFILE_NEGATIVE_DELTAS',
      message: `${negatives} sample(s) arrived with a negative time gap (out of order); they are counted as 0 µs, so the times are approximate there.`,
    });
  }

  // Code that was already running in optimized code when profiling started is charged to the nearest
  // known caller, typically the CommonJS loader line that required the module or a timer line.
  const { lines, functions } = model;
  for (let e = 0; e < lines.count; e++) {
    const info = functions[lines.func[e]];
    if (!LATE_START_SCRIPTS.has(info.url) || lines.selfUs[e] < busyUs * 0.5) continue;
    warnings.push({
      code: 'PROFILE_LATE_START',
      message:
        `${Math.round((lines.selfUs[e] / busyUs) * 100)}% of the busy time is charged to ${info.url} line ${lines.line[e]}. ` +
        'This happens when profiling starts while a long loop is already running in optimized code: its samples go to the caller. ' +
        'Start profiling before the workload (e.g. launch with profiling on) for correct attribution.',
    });
    break;
  }
  return warnings;
}
