/**
 * `--pprof` on the commands that record profiles: each saved .cpuprofile is also written as gzipped
 * pprof (beside it, `<profile>.pb.gz`, or where `--pprof OUT` says), labelled with what ran it — Node
 * version, route, run, compare side, git revision. `report --pprof OUT` is done by the report itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { attributeProfile } from '../core/attribution';
import type { Attribution } from '../core/attribution/types';
import { writePprof, type WrittenPprof } from '../core/pprof/write';
import type { ProfileModel } from '../core/profile/types';
import type { AnyResult } from './jsonOutput';

/** `<profile>.cpuprofile` → `<profile>.pb.gz` (or the name given, with `-a`/`-b` before its extension for compare sides). */
export function pprofPathFor(profilePath: string, given: string | undefined, side?: 'a' | 'b'): string {
  if (!given) return profilePath.replace(/\.cpuprofile$/, '') + '.pb.gz';
  if (!side) return given;
  const m = /^(.*?)(\.pb\.gz|\.pprof|\.pb)?$/.exec(given)!;
  return `${m[1]}-${side}${m[2] ?? '.pb.gz'}`;
}

function startedAt(file: string, model: ProfileModel): number | undefined {
  try { return fs.statSync(file).mtimeMs - (model.endTime - model.startTime) / 1000; } catch { return undefined; }
}

async function write(file: string, model: ProfileModel, attribution: Attribution | null | undefined, profilePath: string, cwd: string, labels: Record<string, string | number | null | undefined>, heap?: { unit: 'bytes'; sampleType: string }): Promise<WrittenPprof> {
  // A comparison keeps no attribution per side: call-site lines are looked up for the export.
  const attr = attribution ?? await attributeProfile(model).catch(() => null);
  return writePprof(file, model, attr, { labels, startedAtMs: startedAt(profilePath, model), source: profilePath, cwd, ...(heap ? { heap } : {}) });
}

/** Writes the exports a command asked for; returns them for the output (empty when none). */
export async function exportRecordedProfiles(result: AnyResult, out: string | undefined, cwd: string): Promise<WrittenPprof[]> {
  switch (result.kind) {
    case 'profile':
    case 'script': {
      if (!result.profilePath || !result.model) return [];
      const route = result.kind === 'profile' ? (result.loadOptions.routes?.length ? result.loadOptions.routes.map((r) => `${r.method} ${r.path}`).join(', ') : `${result.loadOptions.method} ${result.loadOptions.path}`) : undefined;
      const labels = { node: result.target.nodeVersion, route, run: path.basename(result.profilePath).replace(/\.cpuprofile$/, ''), mode: result.kind === 'script' ? 'script' : 'load' };
      const written = [await write(pprofPathFor(result.profilePath, out), result.model, result.attribution, result.profilePath, cwd, labels)];
      // --memory: the allocations too (V8 counted objects the GC already freed: alloc_space), beside the .heapprofile.
      const heapModel = result.kind === 'profile' ? result.memoryExtras?.allocationModel : undefined;
      const heapFile = result.kind === 'profile' ? result.memory?.allocations?.heapProfilePath : undefined;
      if (heapModel && heapFile) written.push(await write(pprofPathFor(heapFile, out ? out.replace(/(\.pb\.gz|\.pprof|\.pb)?$/, '-heap$1') : `${heapFile}.pb.gz`), heapModel, null, result.profilePath, cwd, labels, { unit: 'bytes', sampleType: 'alloc_space' }));
      return written;
    }
    case 'startup': {
      if (!result.profilePath || !result.model) return [];
      return [await write(pprofPathFor(result.profilePath, out), result.model, result.attribution, result.profilePath, cwd, {
        node: result.target.nodeVersion, run: path.basename(result.profilePath).replace(/\.cpuprofile$/, ''), mode: 'startup',
      })];
    }
    case 'compare': {
      if (!result.profiles) return [];
      const written: WrittenPprof[] = [];
      for (const key of ['a', 'b'] as const) {
        const side = result.sides[key === 'a' ? 0 : 1];
        const p = result.profiles[key];
        written.push(await write(pprofPathFor(p.path, out, out ? key : undefined), p.model, null, p.path, side.cwd, {
          node: side.nodeVersion, 'git revision': side.gitRev ? `${side.gitRev}${side.gitDirty ? '-dirty' : ''}` : undefined, 'compare side': `${key.toUpperCase()}: ${side.label}`,
          run: path.basename(p.path).replace(/\.cpuprofile$/, ''),
        }));
      }
      return written;
    }
    default:
      return [];
  }
}
