/**
 * Append-only typed columns for the pprof decoder: counts are unknown until the end of the message, so
 * columns grow geometrically and `view()` returns the filled part without copying.
 */
export class NumberList {
  data: Float64Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Float64Array(Math.max(4, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = value;
  }

  private grow(): void {
    const next = new Float64Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }

  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

export class IndexList {
  data: Int32Array;
  length = 0;

  constructor(capacity = 64) {
    this.data = new Int32Array(Math.max(4, capacity));
  }

  push(value: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = value;
  }

  private grow(): void {
    const next = new Int32Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }

  view(): Int32Array {
    return this.data.subarray(0, this.length);
  }
}
