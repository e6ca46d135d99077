/**
 * The small-profile fast path for the `nodes` array: V8's native JSON.parse reads the array's text and
 * this copies the objects into a NodeTable.
 *
 * Why: a few thousand nodes are parsed before V8 has optimized the byte scanner, so the scanner runs
 * them in the interpreter (measured: ~35 ms for 3,000 nodes, vs ~10 ms through JSON.parse). For big
 * node arrays the warmed-up scanner is faster and needs no object tree, so scanner.ts only takes this
 * path below a size limit.
 *
 * It accepts exactly what the scanner accepts and fills the table identically; on anything else it
 * returns false and the scanner re-reads the array, so error messages come from one place.
 */
import type { NodeTable } from './nodeTable';

const isInt32 = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= -2147483648 && v <= 2147483647;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fill `table` from a JSON.parse'd nodes array; false if the scanner must decide (errors, odd shapes). */
export function readParsedNodes(nodes: unknown, table: NodeTable): boolean {
  if (!Array.isArray(nodes)) return false;
  for (const node of nodes) {
    if (!isObject(node)) return false;
    const i = table.add();
    if (!isInt32(node.id)) return false;
    table.id[i] = node.id;
    if (!readCallFrame(node.callFrame, table, i)) return false;

    const { hitCount, children, positionTicks, parent, deoptReason } = node;
    if (hitCount !== undefined) {
      if (!isInt32(hitCount)) return false;
      table.hitCount[i] = hitCount;
    }
    if (children !== undefined) {
      if (!Array.isArray(children)) return false;
      for (const c of children) {
        if (!isInt32(c)) return false;
        table.childIds.push(c);
      }
      table.childCount[i] = children.length;
    }
    if (positionTicks !== undefined) {
      if (!Array.isArray(positionTicks)) return false;
      for (const t of positionTicks) {
        // The scanner treats a negative line/ticks like a missing one (an error): same here.
        if (!isObject(t) || !isInt32(t.line) || !isInt32(t.ticks) || t.line < 0 || t.ticks < 0) return false;
        table.tickLine.push(t.line);
        table.tickCount.push(t.ticks);
      }
      table.tickCountOf[i] = positionTicks.length;
    }
    if (parent !== undefined) {
      if (!isInt32(parent)) return false;
      table.parentId[i] = parent;
    }
    if (typeof deoptReason === 'string' && deoptReason !== '') table.deoptReason[i] = table.intern(deoptReason);
  }
  return true;
}

function readCallFrame(frame: unknown, table: NodeTable, i: number): boolean {
  if (!isObject(frame)) return false;
  const { functionName, url, scriptId, lineNumber, columnNumber } = frame;
  if (functionName !== undefined) {
    if (typeof functionName !== 'string') return false;
    table.functionName[i] = table.intern(functionName);
  }
  if (url !== undefined) {
    if (typeof url !== 'string') return false;
    table.url[i] = table.intern(url);
  }
  if (scriptId !== undefined) {
    if (typeof scriptId === 'string') table.scriptId[i] = table.intern(scriptId);
    else if (typeof scriptId === 'number') table.scriptId[i] = table.intern(String(scriptId));
    else return false;
  }
  if (lineNumber !== undefined) {
    if (!isInt32(lineNumber)) return false;
    table.lineNumber[i] = lineNumber;
  }
  if (columnNumber !== undefined) {
    if (!isInt32(columnNumber)) return false;
    table.columnNumber[i] = columnNumber;
  }
  table.finishNode(i);
  return true;
}
