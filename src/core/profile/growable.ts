/**
 * Append-only typed arrays. The scanner does not know counts in advance (nodes, children, position
 * ticks), so columns grow geometrically; `view()` returns the filled part without copying.
 */
export class Int32List {
  data: Int32Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Int32Array(Math.max(4, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1);
    this.data[this.length++] = value;
  }

  grow(minCapacity: number): void {
    const next = new Int32Array(Math.max(minCapacity, this.data.length * 2));
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}
