/**
 * A RawProfile's children lists (CSR) from a tree given by parents, for formats that build their tree
 * node by node (pprof, 0x): node v's parent is parent[v] (node 0 is the root), ids are v + 1, and a node's
 * children follow in node order.
 */
export function childListsFromParents(parent: ArrayLike<number>, n: number): { childCount: Int32Array; childStart: Int32Array; childIds: Int32Array } {
  const childCount = new Int32Array(n);
  for (let v = 1; v < n; v++) childCount[parent[v]]++;
  const childStart = new Int32Array(n);
  for (let v = 1; v < n; v++) childStart[v] = childStart[v - 1] + childCount[v - 1];
  const fill = childStart.slice();
  const childIds = new Int32Array(Math.max(0, n - 1));
  for (let v = 1; v < n; v++) childIds[fill[parent[v]]++] = v + 1;
  return { childCount, childStart, childIds };
}
