/**
 * buildProfileModel: bytes of a .cpuprofile → ProfileModel, synchronously and without IO. The pipeline
 * is a chain of pure steps: scan (bytes → columns) → tree (→ self/total per node) → functions → lines.
 * Source mapping needs file reads, so it is a separate async step (sourceMaps.ts).
 */
import { profileWarnings } from './diagnostics';
import { tooLarge } from './errors';
import { buildFunctions } from './functions';
import { parseJsDebugAnnotations } from './jsDebug';
import { buildLineTable } from './lines';
import { PADDING, scanProfile, type RawProfile } from './scanner';
import { buildTree } from './tree';
import type { ModelOptions, ProfileModel } from './types';

export function buildProfileModel(input: Uint8Array | string, options: ModelOptions = {}): ProfileModel {
  // The scanner needs zeroed slack after the data, so copy into a padded buffer. loadProfile reads
  // the file straight into one and skips this copy.
  const source = options.sourceName ?? 'The profile';
  let buf: Buffer;
  let length: number;
  try {
    if (typeof input === 'string') {
      length = Buffer.byteLength(input, 'utf8');
      buf = Buffer.allocUnsafe(length + PADDING);
      buf.write(input, 0, 'utf8');
    } else {
      length = input.byteLength;
      buf = Buffer.allocUnsafe(length + PADDING);
      buf.set(input, 0);
    }
  } catch (err) {
    if (err instanceof RangeError) throw tooLarge(source, err.message);
    throw err;
  }
  return modelFromBuffer(buf, length, source, options.thread);
}

/** @internal The shared path: `buf` holds `length` bytes of data plus PADDING bytes of slack. */
export function modelFromBuffer(buf: Buffer, length: number, source: string, thread?: string): ProfileModel {
  try {
    return build(buf, length, source, thread);
  } catch (err) {
    // Allocation limits (typed arrays, strings) surface as RangeError: a user problem, not a bug.
    if (err instanceof RangeError) throw tooLarge(source, err.message);
    throw err;
  }
}

function build(buf: Buffer, length: number, source: string, thread?: string): ProfileModel {
  const raw = scanProfile(buf, length, source);
  const annotations = raw.vscode ? parseJsDebugAnnotations(buf.toString('utf8', raw.vscode.start, raw.vscode.end)) : {};
  return modelFromRaw(raw, source, thread, annotations);
}

/** @internal A scanned profile → its model (the steps after the scanner; threads.ts feeds merged profiles). */
export function modelFromRaw(raw: RawProfile, source: string, thread?: string, annotations: ReturnType<typeof parseJsDebugAnnotations> = {}): ProfileModel {
  const tree = buildTree(raw, source);
  const table = buildFunctions(raw, tree);
  const lines = buildLineTable(raw, tree, table);

  let idleUs = 0;
  let gcUs = 0;
  let programUs = 0;
  table.functions.forEach((info, f) => {
    if (info.category === 'idle') idleUs += table.selfUs[f];
    else if (info.category === 'gc') gcUs += table.selfUs[f];
    else if (info.category === 'program') programUs += table.selfUs[f];
  });

  const model: ProfileModel = {
    source,
    thread,
    startTime: raw.startTime,
    endTime: raw.endTime,
    durationUs: tree.durationUs,
    sampleCount: tree.samples.length,
    idleUs,
    gcUs,
    programUs,
    nodeCount: raw.nodeCount,
    rootIndex: tree.rootIndex,
    nodes: {
      id: raw.id,
      parent: tree.parent,
      func: table.nodeFunction,
      selfUs: tree.selfUs,
      totalUs: tree.totalUs,
      hitCount: raw.hitCount,
      depth: tree.depth,
      childOffsets: tree.childOffsets,
      childIndex: tree.childIndex,
      preorder: tree.preorder,
    },
    functions: table.functions,
    functionSelfUs: table.selfUs,
    functionTotalUs: table.totalUs,
    lines,
    samples: tree.samples,
    timeDeltas: raw.timeDeltas,
    rootPath: annotations.rootPath,
    sourceMaps: { applied: false, scriptsMapped: 0, functionsMapped: 0, linesMapped: 0, failures: [] },
    warnings: [],
    jsDebug: annotations.locations,
  };
  model.warnings.push(...profileWarnings(model));
  return model;
}
