/**
 * Merges call-tree nodes into functions, keyed by (functionName, url, lineNumber, columnNumber): one
 * function called from many places has many nodes. Self time adds up; total time counts each subtree
 * only under its outermost frame of that function, so recursion is not counted twice.
 */
import { type Classification, classify } from './categories';
import type { RawProfile } from './scanner';
import type { CallTree } from './tree';
import type { FunctionInfo } from './types';

export interface FunctionTable {
  functions: FunctionInfo[];
  /** Function index per node. */
  nodeFunction: Int32Array;
  selfUs: Float64Array;
  totalUs: Float64Array;
}

export function buildFunctions(raw: RawProfile, tree: CallTree): FunctionTable {
  const n = raw.nodeCount;
  const strings = raw.strings;
  const nodeFunction = new Int32Array(n);
  const functions: FunctionInfo[] = [];
  const { functionName, url, lineNumber, columnNumber } = raw;

  // Open-addressing hash of the four int fields (string fields are interned indices); each slot holds
  // a function index, compared through the function's first node. Avoids a string key per node.
  let size = 1024;
  while (size < n * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  const firstNode = new Int32Array(n);
  // classify() depends on the url alone (and on the name only for url-less pseudo-frames); a profile has
  // far fewer scripts than functions, so classify once per url.
  const byUrl = new Map<number, Classification>();

  for (let i = 0; i < n; i++) {
    const a = functionName[i];
    const b = url[i];
    const c = lineNumber[i];
    const d = columnNumber[i];
    let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77) ^ Math.imul(c, 0xc2b2ae3d) ^ Math.imul(d, 0x27d4eb2f);
    h ^= h >>> 15;
    let slot = h & mask;
    let f = -1;
    for (;;) {
      const candidate = slots[slot];
      if (candidate < 0) break;
      const j = firstNode[candidate];
      if (functionName[j] === a && url[j] === b && lineNumber[j] === c && columnNumber[j] === d) {
        f = candidate;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (f < 0) {
      f = functions.length;
      slots[slot] = f;
      firstNode[f] = i;
      functions.push(describeFunction(raw, i, byUrl));
    } else if (raw.deoptReason[i] >= 0 && functions[f].deoptReason === undefined) {
      functions[f].deoptReason = strings[raw.deoptReason[i]];
    }
    nodeFunction[i] = f;
  }

  const selfUs = new Float64Array(functions.length);
  for (let i = 0; i < n; i++) selfUs[nodeFunction[i]] += tree.selfUs[i];

  // Walk the pre-order keeping the current root-to-node path; `onPath[f]` counts frames of f on it.
  // A node adds its subtree total to f only when no ancestor is f.
  const totalUs = new Float64Array(functions.length);
  const onPath = new Int32Array(functions.length);
  const path = new Int32Array(n);
  let pathLength = 0;
  const { preorder, depth } = tree;
  for (let k = 0; k < n; k++) {
    const v = preorder[k];
    while (pathLength > depth[v]) onPath[nodeFunction[path[--pathLength]]]--;
    const f = nodeFunction[v];
    if (onPath[f] === 0) totalUs[f] += tree.totalUs[v];
    onPath[f]++;
    path[pathLength++] = v;
  }

  return { functions, nodeFunction, selfUs, totalUs };
}

function describeFunction(raw: RawProfile, i: number, byUrl: Map<number, Classification>): FunctionInfo {
  const strings = raw.strings;
  const name = strings[raw.functionName[i]];
  const url = strings[raw.url[i]];
  const line = raw.lineNumber[i];
  const column = raw.columnNumber[i];
  let classified = url === '' ? undefined : byUrl.get(raw.url[i]);
  if (classified === undefined) {
    classified = classify(name, url);
    if (url !== '') byUrl.set(raw.url[i], classified);
  }
  const { category, package: pkg, file } = classified;
  const info: FunctionInfo = {
    name,
    url,
    scriptId: strings[raw.scriptId[i]],
    file,
    // callFrame positions are 0-based; everything we output is 1-based.
    line: line >= 0 ? line + 1 : null,
    column: line >= 0 && column >= 0 ? column + 1 : null,
    category,
    package: pkg,
  };
  if (raw.deoptReason[i] >= 0) info.deoptReason = strings[raw.deoptReason[i]];
  return info;
}
