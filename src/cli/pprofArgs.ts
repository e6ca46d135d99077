/**
 * The options of production profiles: which sample type and labels of a pprof profile to show, how its
 * paths map to this workspace, and where to write a pprof export. Parsed here so args.ts only passes
 * them through.
 */
import * as path from 'node:path';
import { invalidOption } from '../core/common/errors';
import { parseLabelFilter, type LabelFilter } from '../core/pprof/labels';
import { parsePathMapping, type PathMapping } from '../core/profile/pathMap';

export const PPROF_USAGE = `Production profiles (pprof: .pb.gz / .pprof from @datadog/pprof, dd-trace, the Pyroscope SDK,
pprof-nodejs or go tool pprof; 0x output folders) open wherever a .cpuprofile does:
  --sample-type T           report: the pprof sample type to show (cpu, wall, samples, alloc_space,
                            inuse_space, alloc_objects, inuse_objects; default cpu, else wall)
  --label K=V               report: keep the samples with this label (repeatable; the same key twice:
                            either value), e.g. --label "trace endpoint=GET /orders"
  --map-path FROM=TO        report: the profile's paths under FROM are this workspace's under TO
                            (repeatable; otherwise the longest path suffix found under --cwd is used)
  --pprof OUT.pb.gz         report, profile, compare, startup: also write the profile as gzipped pprof
                            (CPU nanoseconds and samples; lines; call-site lines; labels)`;

export const PPROF_OPTIONS = {
  'sample-type': { type: 'string' }, label: { type: 'string', multiple: true }, 'map-path': { type: 'string', multiple: true }, pprof: { type: 'string' },
} as const;

/**
 * `--pprof` takes a value on `report` (the file to write); on the recording commands it may stand alone
 * (write `<profile>.pb.gz` beside each profile): a bare `--pprof` (followed by an option, `--` or nothing)
 * becomes `--pprof=`.
 */
export function bareFlags(argv: string[]): string[] {
  return argv.map((a, i) => (a === '--pprof' && (i + 1 >= argv.length || argv[i + 1].startsWith('-')) ? '--pprof=' : a));
}

export interface PprofArgs {
  sampleType?: string;
  labels: LabelFilter[];
  mappings: PathMapping[];
  /** Write the profile as pprof here (absolute); '' beside each saved profile; undefined: no export. */
  out?: string;
}

export function parsePprofArgs(values: { 'sample-type'?: string; label?: string[]; 'map-path'?: string[]; pprof?: string }, subcommand: string): PprofArgs {
  const reading = values['sample-type'] !== undefined || values.label !== undefined || values['map-path'] !== undefined;
  if (reading && subcommand !== 'report') throw invalidOption('--sample-type, --label and --map-path read a profile: use them with `hotpath report`.');
  if (values.pprof !== undefined && !['report', 'profile', 'compare', 'startup'].includes(subcommand)) throw invalidOption('--pprof works with `hotpath report`, `profile`, `compare` and `startup`.');
  if (values.pprof !== undefined && values.pprof.trim() === '' && subcommand === 'report') throw invalidOption('`hotpath report --pprof` needs the path of the file to write, e.g. --pprof profile.pb.gz.');
  return {
    ...(values['sample-type'] !== undefined ? { sampleType: values['sample-type'] } : {}),
    labels: (values.label ?? []).map(parseLabelFilter),
    mappings: (values['map-path'] ?? []).map(parsePathMapping),
    ...(values.pprof !== undefined ? { out: values.pprof === '' ? '' : path.resolve(values.pprof) } : {}),
  };
}
