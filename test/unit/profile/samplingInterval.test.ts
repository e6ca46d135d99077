import { strict as assert } from 'node:assert';
import { defaultSamplingInterval, MAX_AUTO_INTERVAL_MICROS, MIN_AUTO_INTERVAL_MICROS, TARGET_SAMPLES } from '../../../src/core/profile/samplingInterval';

describe('the default sampling interval', () => {
  it('the default 10 s load samples every 2000 µs; short runs keep 1000 µs, long ones stop at 10 ms', () => {
    assert.equal(defaultSamplingInterval(10), 2000);
    assert.equal(defaultSamplingInterval(3), 1000);
    assert.equal(defaultSamplingInterval(5), 1000);
    assert.equal(defaultSamplingInterval(30), 6000);
    assert.equal(defaultSamplingInterval(3600), MAX_AUTO_INTERVAL_MICROS);
    for (const bad of [undefined, 0, -1, Number.NaN, Number.POSITIVE_INFINITY]) assert.equal(defaultSamplingInterval(bad), MIN_AUTO_INTERVAL_MICROS, String(bad));
  });

  it('every run long enough gets at least TARGET_SAMPLES samples, in 500 µs steps', () => {
    for (let seconds = 1; seconds <= 600; seconds++) {
      const us = defaultSamplingInterval(seconds);
      assert.ok(us % 500 === 0 && us >= MIN_AUTO_INTERVAL_MICROS && us <= MAX_AUTO_INTERVAL_MICROS, `${seconds} s: ${us} µs`);
      const samples = (seconds * 1e6) / us;
      if (us > MIN_AUTO_INTERVAL_MICROS && us < MAX_AUTO_INTERVAL_MICROS) assert.ok(samples >= TARGET_SAMPLES, `${seconds} s: ${samples} samples`);
      // …and not many more: the next 500 µs step would have been too coarse.
      if (us < MAX_AUTO_INTERVAL_MICROS && us > MIN_AUTO_INTERVAL_MICROS) assert.ok((seconds * 1e6) / (us + 500) < TARGET_SAMPLES, `${seconds} s could sample every ${us + 500} µs`);
    }
  });
});
