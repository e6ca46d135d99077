/**
 * The calls a profile shows: every distinct (caller function, callee function) pair of a parent and
 * child frame, with the time under it, and the pair of every node. Typed arrays and an open-addressing
 * table (no string or float Map keys): a 50 MB profile has tens of thousands of nodes, and the pass
 * over them reads a node's pair instead of hashing it.
 */
import type { ProfileModel } from '../profile/types';

export interface CallPairs {
  count: number;
  caller: Int32Array;
  callee: Int32Array;
  /** Time under the pair, summed over its nodes (a recursive pair counts its nested nodes too). */
  us: Float64Array;
  /** Per node: the pair of its parent's function and its own; -1 for the root. */
  nodePair: Int32Array;
  /** The pair of (caller, callee), or -1. */
  find(caller: number, callee: number): number;
}

export function callPairs(model: ProfileModel): CallPairs {
  const { nodes } = model;
  const n = model.nodeCount;
  let size = 1024;
  while (size < n * 2) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size).fill(-1);
  const caller = new Int32Array(n);
  const callee = new Int32Array(n);
  const us = new Float64Array(n);
  const nodePair = new Int32Array(n).fill(-1);
  let count = 0;
  const slotOf = (a: number, b: number) => {
    let h = Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77);
    h ^= h >>> 15;
    let slot = h & mask;
    for (;;) {
      const e = slots[slot];
      if (e < 0 || (caller[e] === a && callee[e] === b)) return slot;
      slot = (slot + 1) & mask;
    }
  };
  for (let v = 0; v < n; v++) {
    const p = nodes.parent[v];
    if (p < 0) continue;
    const a = nodes.func[p];
    const b = nodes.func[v];
    const slot = slotOf(a, b);
    let e = slots[slot];
    if (e < 0) {
      e = count++;
      slots[slot] = e;
      caller[e] = a;
      callee[e] = b;
    }
    us[e] += nodes.totalUs[v];
    nodePair[v] = e;
  }
  return {
    count, caller: caller.subarray(0, count), callee: callee.subarray(0, count), us: us.subarray(0, count), nodePair,
    find(a, b) {
      return slots[slotOf(a, b)];
    },
  };
}
