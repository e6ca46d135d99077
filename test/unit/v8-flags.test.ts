import { strict as assert } from 'node:assert';
import { DISABLE_FLAGS, enableFlags } from '../../src/core/v8/flags';

// V8's code tracer reads --redirect-code-traces on every trace and fixes its file when first used:
// a trace flag on while the redirect is off writes to the app's stdout, and one traced after the
// redirect went off writes to a null FILE* (the attached app crashed with SIGSEGV that way).
describe('V8 trace flags set at run time', () => {
  it('switching on: the redirect and its file come before any trace flag', () => {
    for (const stdoutTraces of [false, true]) {
      const flags = enableFlags('/tmp/hotpath-v8-1/42.trace', { stdoutTraces }).split(' ');
      const firstTrace = flags.findIndex((f) => /^--(trace|print)-/.test(f));
      assert.ok(firstTrace > 0);
      assert.deepEqual(flags.slice(0, 2), ['--redirect-code-traces', '--redirect-code-traces-to=/tmp/hotpath-v8-1/42.trace']);
    }
  });

  it('switching off: every trace flag goes off, the redirect stays on', () => {
    const on = enableFlags('/tmp/x.trace', { stdoutTraces: true }).split(' ').filter((f) => /^--(trace|print)-/.test(f));
    const off = DISABLE_FLAGS.split(' ');
    for (const f of on) assert.ok(off.includes(f.replace(/^--/, '--no-')), `${f} is switched off`);
    assert.ok(!off.some((f) => /redirect/.test(f)), DISABLE_FLAGS);
    assert.ok(off.includes('--no-allow-natives-syntax'));
  });
});
