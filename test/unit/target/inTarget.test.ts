/**
 * The preload's listen observer (src/core/target/inTarget.ts) must leave the app's server as V8 would
 * have it without Hotpath: after 'listening' the wrapper is gone and the server still has fast
 * properties. Deleting the wrapper (as an earlier version did) turned every profiled HTTP server into a
 * dictionary-mode object — slower property reads on the request path for the whole run.
 * Runs in a child process: the observer patches net.Server.prototype.listen for the process, and
 * %HasFastProperties needs --allow-natives-syntax.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function observed(ownEmit: boolean): { port: boolean; fast: boolean; plainFast: boolean; emitIsOriginal: boolean; requestServed: boolean } {
  const script = `
    const http = require('node:http');
    const { observeListen } = require('./src/core/target/inTarget.ts');
    const fastOf = new Function('o', 'return %HasFastProperties(o)');
    let port = false;
    observeListen({ onListening: (a) => { port = a.port > 0; }, onError: () => {} });
    const server = http.createServer((req, res) => res.end('ok'));
    const ownEmit = ${ownEmit} ? function appEmit(...a) { return http.Server.prototype.emit.apply(this, a); } : null;
    if (ownEmit) server.emit = ownEmit;
    const original = server.emit;
    const plain = http.createServer(() => {});
    plain.listen(0, '127.0.0.1', () => {
      server.listen(0, '127.0.0.1', () => {
        http.get({ host: '127.0.0.1', port: server.address().port, path: '/' }, (res) => {
          res.resume();
          res.on('end', () => {
            console.log(JSON.stringify({ port, fast: fastOf(server), plainFast: fastOf(plain), emitIsOriginal: server.emit === original, requestServed: res.statusCode === 200 }));
            server.close(); plain.close();
          });
        });
      });
    });`;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-r', 'tsx/cjs', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
  return JSON.parse(out.trim().split('\n').pop()!);
}

describe("the preload's listen observer", () => {
  it('reports the port and leaves the server with fast properties and its own emit', () => {
    const r = observed(false);
    assert.deepEqual(r, { port: true, fast: true, plainFast: true, emitIsOriginal: true, requestServed: true });
  });

  it("puts back an app's own emit", () => {
    const r = observed(true);
    assert.deepEqual(r, { port: true, fast: true, plainFast: true, emitIsOriginal: true, requestServed: true });
  });

  it('the check can fail: a server that lost a property by delete is reported slow', () => {
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', `
      const s = require('node:http').createServer(() => {});
      s.emit = s.emit; s.extra = 1; delete s.emit;
      console.log(new Function('o', 'return %HasFastProperties(o)')(s));`], { encoding: 'utf8' });
    assert.equal(out.trim(), 'false');
  });
});
