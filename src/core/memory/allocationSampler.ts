/**
 * V8's sampling heap profiler over the inspector, with a lifetime: started with the CPU profiler, so
 * it covers the same window, stopped once. With `includeCollected`, objects the minor and major GCs
 * already freed stay in the profile (churn: what costs GC time); without, only objects still alive at
 * the end are reported (what a leak check wants). Every Node Hotpath supports (20, 22, 24, 26) honours
 * both flags (checked by test/integration/memory.test.ts through the bytes they report).
 */
import type { CdpSession } from '../inspector/cdpClient';
import type { SamplingHeapProfile } from './heapProfile';

/**
 * Mean bytes between samples. Chosen from `npm run bench -- memory` (req/s with sampling on vs off,
 * interleaved in one app process): see the README's Benchmarks section.
 */
export const DEFAULT_SAMPLING_INTERVAL_BYTES = 32 * 1024;

export interface AllocationSamplingOptions {
  intervalBytes: number;
  /** Keep samples of objects GC already collected (allocation churn). */
  includeCollected: boolean;
}

export class AllocationSampler {
  private stopped: Promise<SamplingHeapProfile> | undefined;
  private constructor(private readonly session: CdpSession, readonly options: AllocationSamplingOptions) {}

  static async start(session: CdpSession, options: AllocationSamplingOptions): Promise<AllocationSampler> {
    await session.send('HeapProfiler.enable');
    await session.send('HeapProfiler.startSampling', {
      samplingInterval: options.intervalBytes,
      includeObjectsCollectedByMajorGC: options.includeCollected,
      includeObjectsCollectedByMinorGC: options.includeCollected,
    });
    return new AllocationSampler(session, options);
  }

  /** The profile so far, sampling continuing (leak rungs read it after a forced GC). */
  async snapshot(): Promise<SamplingHeapProfile> {
    const { profile } = await this.session.send<{ profile: SamplingHeapProfile }>('HeapProfiler.getSamplingProfile');
    return profile;
  }

  /** Stops sampling and returns the profile. Idempotent. */
  stop(): Promise<SamplingHeapProfile> {
    this.stopped ??= (async () => {
      const { profile } = await this.session.send<{ profile: SamplingHeapProfile }>('HeapProfiler.stopSampling');
      await this.session.trySend('HeapProfiler.disable');
      return profile;
    })();
    return this.stopped;
  }

  /** Stops sampling without waiting for a profile (errors, cancellation). */
  async abandon(): Promise<void> {
    if (this.stopped) return;
    this.stopped = Promise.reject(new Error('abandoned'));
    this.stopped.catch(() => undefined);
    await this.session.trySend('HeapProfiler.stopSampling');
    await this.session.trySend('HeapProfiler.disable');
  }
}
