/**
 * Counts responses into one bucket per autocannon 'tick' (about once a second).
 *
 * autocannon keeps per-second counts only inside an HDR histogram (3 significant digits, no order), and
 * its last 'tick' fires right after its final sample with an empty counter. Counting responses ourselves
 * between ticks gives the exact sequence; a trailing sliver shorter than half a second (the moment between
 * the last regular tick and the stop) is folded into the previous bucket instead of becoming a fake
 * near-zero second that would drag the mean down and inflate the stddev.
 */
export class PerSecondCounter {
  private readonly buckets: number[] = [];
  private current = 0;
  private total = 0;
  private bucketStart: number;

  constructor(startMs: number) {
    this.bucketStart = startMs;
  }

  /** One completed response. */
  record(count = 1): void {
    this.current += count;
    this.total += count;
  }

  /**
   * Closes the current bucket. Returns its count (the last second's responses, for progress), or
   * undefined when the bucket was a sliver folded into the previous one.
   */
  tick(nowMs: number): number | undefined {
    const count = this.current;
    const sliver = nowMs - this.bucketStart < 500 && this.buckets.length > 0;
    if (sliver) this.buckets[this.buckets.length - 1] += count;
    else this.buckets.push(count);
    this.current = 0;
    this.bucketStart = nowMs;
    return sliver ? undefined : count;
  }

  /** All responses counted so far. */
  get responses(): number {
    return this.total;
  }

  /** The closed buckets plus whatever is still open, folded in as tick() would. */
  finish(nowMs: number): number[] {
    if (this.current > 0 || this.buckets.length === 0) this.tick(nowMs);
    return [...this.buckets];
  }
}
