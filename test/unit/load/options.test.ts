import * as assert from 'node:assert/strict';
import { ErrorCode, HotpathError } from '../../../src/core/common/errors';
import { DEFAULT_LOAD_OPTIONS, parseHeader, resolveLoadOptions, targetUrl } from '../../../src/core/load/options';

function invalid(fn: () => unknown, message: string | RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof HotpathError, `expected HotpathError, got ${String(err)}`);
    assert.equal(err.code, ErrorCode.InvalidOption);
    if (typeof message === 'string') assert.equal(err.message, message);
    else assert.match(err.message, message);
    return true;
  });
}

describe('load options', () => {
  it('merges the defaults and builds a loopback URL from the detected port', () => {
    const options = resolveLoadOptions({}, { port: 3000 });
    assert.deepEqual(options, {
      path: '/', method: 'GET', headers: {}, connections: 10, durationSeconds: 10, warmupSeconds: 3,
      pipelining: 1, timeoutSeconds: 10, port: 3000,
    });
    assert.equal(targetUrl(options), 'http://127.0.0.1:3000/');
    assert.equal(targetUrl(resolveLoadOptions({ path: '/api?x=1' }, { port: 8080 })), 'http://127.0.0.1:8080/api?x=1');
    assert.equal(DEFAULT_LOAD_OPTIONS.connections, 10);
  });

  it('prefers an explicit url, then an explicit port, over the detected port', () => {
    assert.equal(targetUrl(resolveLoadOptions({ url: 'http://localhost:9000/x' }, { port: 1 })), 'http://localhost:9000/x');
    assert.equal(targetUrl(resolveLoadOptions({ port: '4000' }, { port: 1 })), 'http://127.0.0.1:4000/');
  });

  it('accepts the CLI\'s strings for numbers and normalises the method', () => {
    const options = resolveLoadOptions({ connections: '25', durationSeconds: '5', warmupSeconds: '0', method: 'post', body: '{}' }, { port: 1 });
    assert.equal(options.connections, 25);
    assert.equal(options.durationSeconds, 5);
    assert.equal(options.warmupSeconds, 0);
    assert.equal(options.method, 'POST');
    assert.equal(options.body, '{}');
  });

  it('says which flag is wrong, what it must be and what it got', () => {
    invalid(() => resolveLoadOptions({ connections: 'abc' }, { port: 1 }), "--connections must be a whole number ≥ 1 (got 'abc').");
    invalid(() => resolveLoadOptions({ connections: 0 }, { port: 1 }), '--connections must be a whole number ≥ 1 (got 0).');
    invalid(() => resolveLoadOptions({ durationSeconds: 1.5 }, { port: 1 }), '--duration must be a whole number ≥ 1 (got 1.5).');
    invalid(() => resolveLoadOptions({ durationSeconds: '10s' }, { port: 1 }), "--duration must be a whole number ≥ 1 (got '10s').");
    invalid(() => resolveLoadOptions({ warmupSeconds: -1 }, { port: 1 }), '--warmup must be a whole number ≥ 0 (got -1).');
    invalid(() => resolveLoadOptions({ pipelining: '' }, { port: 1 }), "--pipelining must be a whole number ≥ 1 (got '').");
    invalid(() => resolveLoadOptions({ timeoutSeconds: 0 }, { port: 1 }), /^--timeout must be a whole number ≥ 1/);
    invalid(() => resolveLoadOptions({ port: 70000 }), '--port must be a whole number from 1 to 65535 (got 70000).');
    invalid(() => resolveLoadOptions({ method: 'FETCH' }, { port: 1 }), /^--method must be one of GET, HEAD, POST/);
    invalid(() => resolveLoadOptions({ path: 'api' }, { port: 1 }), /^--path must start with '\/'/);
    invalid(() => resolveLoadOptions({ url: 'ftp://x/' }), /^--url must be an http:\/\/ or https:\/\/ URL/);
    invalid(() => resolveLoadOptions({ url: 'not a url' }), /\(got 'not a url'\)\.$/);
    invalid(() => resolveLoadOptions({}), /^--url or --port is needed/);
  });

  it('names the VS Code setting in the error details for the editor front end', () => {
    try {
      resolveLoadOptions({ connections: -3 }, { port: 1 });
      assert.fail('should throw');
    } catch (err) {
      assert.ok(err instanceof HotpathError);
      assert.equal(err.details?.setting, 'hotpath.load.connections');
      assert.equal(err.details?.flag, '--connections');
    }
  });

  it('parses CLI headers with or without a space and rejects malformed ones', () => {
    assert.deepEqual(parseHeader('Content-Type: application/json'), ['Content-Type', 'application/json']);
    assert.deepEqual(parseHeader('x-token:abc:def'), ['x-token', 'abc:def']);
    invalid(() => parseHeader('no colon here'), /^--header expects 'Name: value'/);
    invalid(() => parseHeader(': value'), /^--header expects 'Name: value'/);
    invalid(() => parseHeader('Bad Name: v'), /^--header name must be a plain token/);
    invalid(() => resolveLoadOptions({ headers: { 'X-A': 'a\r\nX-Injected: 1' } }, { port: 1 }), /^--header value must not contain line breaks/);
    const options = resolveLoadOptions({ headers: ['Accept: text/plain', 'X-Id: 7'] }, { port: 1 });
    assert.deepEqual(options.headers, { Accept: 'text/plain', 'X-Id': '7' });
  });
});
