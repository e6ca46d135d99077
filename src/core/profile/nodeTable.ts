/**
 * Where parsed nodes go: growable per-node columns (one index addresses a whole node), the flattened
 * children and positionTicks lists, and the interned strings. Both node readers fill it — the byte
 * scanner and the JSON.parse path for small node arrays (parsedNodes.ts) — so they cannot disagree on
 * defaults or layout.
 */
import { Int32List } from './growable';

export class NodeTable {
  private capacity = 256;
  count = 0;
  id = new Int32Array(this.capacity);
  /** String indices; -1 until set (finishNode fills '' for absent fields). */
  functionName = new Int32Array(this.capacity);
  url = new Int32Array(this.capacity);
  scriptId = new Int32Array(this.capacity);
  lineNumber = new Int32Array(this.capacity);
  columnNumber = new Int32Array(this.capacity);
  hitCount = new Int32Array(this.capacity);
  /** Id from a node's own `parent` field (trace-style profiles); NaN when absent. */
  parentId = new Float64Array(this.capacity);
  deoptReason = new Int32Array(this.capacity);
  childStart = new Int32Array(this.capacity);
  childCount = new Int32Array(this.capacity);
  tickStart = new Int32Array(this.capacity);
  tickCountOf = new Int32Array(this.capacity);

  readonly childIds = new Int32List(1024);
  readonly tickLine = new Int32List(1024);
  readonly tickCount = new Int32List(1024);

  readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();

  /** Append a node with every field at its default; returns its index. */
  add(): number {
    if (this.count === this.capacity) this.grow();
    const i = this.count++;
    this.functionName[i] = this.url[i] = this.scriptId[i] = -1;
    this.lineNumber[i] = this.columnNumber[i] = -1;
    this.hitCount[i] = 0;
    this.parentId[i] = NaN;
    this.deoptReason[i] = -1;
    this.childStart[i] = this.childIds.length;
    this.childCount[i] = 0;
    this.tickStart[i] = this.tickLine.length;
    this.tickCountOf[i] = 0;
    return i;
  }

  /** callFrame strings CDP requires but a file may lack become ''. */
  finishNode(i: number): void {
    if (this.functionName[i] < 0) this.functionName[i] = this.intern('');
    if (this.url[i] < 0) this.url[i] = this.intern('');
    if (this.scriptId[i] < 0) this.scriptId[i] = this.intern('');
  }

  /** Forget all nodes (a repeated "nodes" key, or a failed fast path); interned strings stay. */
  clear(): void {
    this.count = 0;
    this.childIds.length = this.tickLine.length = this.tickCount.length = 0;
  }

  intern(value: string): number {
    let id = this.stringIds.get(value);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(value);
      this.stringIds.set(value, id);
    }
    return id;
  }

  private grow(): void {
    const cap = this.capacity * 2;
    const grow32 = (a: Int32Array) => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    this.id = grow32(this.id);
    this.functionName = grow32(this.functionName);
    this.url = grow32(this.url);
    this.scriptId = grow32(this.scriptId);
    this.lineNumber = grow32(this.lineNumber);
    this.columnNumber = grow32(this.columnNumber);
    this.hitCount = grow32(this.hitCount);
    this.deoptReason = grow32(this.deoptReason);
    this.childStart = grow32(this.childStart);
    this.childCount = grow32(this.childCount);
    this.tickStart = grow32(this.tickStart);
    this.tickCountOf = grow32(this.tickCountOf);
    const parent = new Float64Array(cap);
    parent.set(this.parentId);
    this.parentId = parent;
    this.capacity = cap;
  }
}
