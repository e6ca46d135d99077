/**
 * Profiles whose numbers cannot be true get a clear message instead of being printed: non-finite or
 * absurd time deltas, large backward steps, an end before the start; small backward steps are counted
 * as 0 with a warning; zero samples are never ranked; a saved Profiler.stop response is unwrapped.
 */
import * as assert from 'node:assert/strict';
import { buildProfileModel, rankHotspots } from '../../../src/core/profile';
import { ErrorCode, isHotpathError } from '../../../src/core/common/errors';

const frame = (name: string) => `{"functionName":"${name}","scriptId":"0","url":"","lineNumber":-1,"columnNumber":-1}`;
const NODES = `[{"id":1,"callFrame":${frame('(root)')},"children":[2]},{"id":2,"callFrame":${frame('work')},"hitCount":2}]`;
function profile(p: { samples?: string; timeDeltas?: string; startTime?: string; endTime?: string } = {}): string {
  return `{"nodes":${NODES},"startTime":${p.startTime ?? '100'},"endTime":${p.endTime ?? '200'},"samples":${p.samples ?? '[2,2]'},"timeDeltas":${p.timeDeltas ?? '[10,10]'}}`;
}
const build = (text: string) => buildProfileModel(text, { sourceName: 'bad.cpuprofile' });

function rejects(text: string, pattern: RegExp): void {
  assert.throws(() => build(text), (err) => {
    assert.ok(isHotpathError(err, ErrorCode.ProfileInvalid), String(err));
    assert.match(err.message, /^bad\.cpuprofile is not a valid CPU profile/);
    assert.match(err.message, pattern);
    assert.match(err.message, /re-record/i);
    return true;
  });
}

describe('profile sanity', () => {
  it('a time delta of 1e300 or 1e400 (Infinity) is refused, not printed', () => {
    rejects(profile({ timeDeltas: '[10,1e300]', endTime: '1e300' }), /30 days|finite/);
    rejects(profile({ timeDeltas: '[10,1e300]' }), /add up to more than 30 days/);
    rejects(profile({ timeDeltas: '[10,1e400]' }), /not a finite number/);
  });

  it('startTime/endTime that are not finite, reversed or absurd are refused', () => {
    rejects(profile({ endTime: '1e400' }), /not a finite number/);
    rejects(profile({ startTime: '500', endTime: '200' }), /is before "startTime"/);
    rejects(profile({ endTime: '1e15' }), /span more than 30 days/);
  });

  it('a large backward step is refused; small ones count as 0 with a warning', () => {
    rejects(profile({ timeDeltas: '[10,-5000000]' }), /goes back in time by 5000 ms/);
    const model = build(profile({ samples: '[2,2,2]', timeDeltas: '[10,-3,10]', endTime: '200' }));
    assert.ok(model.durationUs > 0);
    const w = model.warnings.find((x) => x.code === 'PROFILE_NEGATIVE_DELTAS');
    assert.ok(w, JSON.stringify(model.warnings));
    assert.match(w.message, /1 sample\(s\) arrived with a negative time gap/);
  });

  it('zero samples: a warning, and nothing is ranked', () => {
    const model = build(profile({ samples: '[]', timeDeltas: '[]' }));
    assert.equal(model.sampleCount, 0);
    assert.ok(model.warnings.some((w) => w.code === 'PROFILE_EMPTY'));
    assert.deepEqual(rankHotspots(model), []);
  });

  it('a saved Profiler.stop response ({"profile": {...}}) is unwrapped', () => {
    const plain = build(profile());
    const wrapped = build(`{"profile": ${profile()} }`);
    assert.equal(wrapped.sampleCount, plain.sampleCount);
    assert.equal(wrapped.durationUs, plain.durationUs);
    assert.deepEqual(wrapped.functions.map((f) => f.name), plain.functions.map((f) => f.name));
    // With the wrapper's other members around it, in any order.
    const padded = build(`{"id": 7, "profile": ${profile()}, "note": "x"}`);
    assert.equal(padded.sampleCount, 2);
    assert.throws(() => build('{"profile": 3}'), /no "nodes" array/);
  });
});
