import * as assert from 'node:assert/strict';
import { classify, packageName } from '../../../src/core/profile';

describe('profile categories', () => {
  const cases: [string, string, string, string | null, string][] = [
    // functionName, url → category, package, file
    ['(root)', '', 'root', null, ''],
    ['(program)', '', 'program', null, ''],
    ['(idle)', '', 'idle', null, ''],
    ['(garbage collector)', '', 'gc', null, ''],
    ['RegExp: \\d+', '', 'native', null, ''],
    ['sort', '', 'native', null, ''],
    ['', 'node:internal/timers', 'node', null, 'node:internal/timers'],
    ['emit', 'node:events', 'node', null, 'node:events'],
    ['x', 'internal/modules/cjs/loader.js', 'node', null, 'internal/modules/cjs/loader.js'], // Node < 16
    ['x', 'events.js', 'node', null, 'events.js'],
    ['main', 'file:///srv/app/src/main.js', 'user', null, '/srv/app/src/main.js'],
    ['main', 'file:///srv/my%20app/a.js', 'user', null, '/srv/my app/a.js'],
    ['main', '/srv/app/src/main.js', 'user', null, '/srv/app/src/main.js'],
    ['h', 'file:///srv/app/node_modules/express/lib/router.js', 'dependency', 'express', '/srv/app/node_modules/express/lib/router.js'],
    ['h', 'file:///srv/app/node_modules/@fastify/ajv/index.js', 'dependency', '@fastify/ajv', '/srv/app/node_modules/@fastify/ajv/index.js'],
    ['h', 'file:///a/node_modules/outer/node_modules/@s/inner/i.js', 'dependency', '@s/inner', '/a/node_modules/outer/node_modules/@s/inner/i.js'],
    ['h', 'file:///a/node_modules/.pnpm/lodash@4.17.21/node_modules/lodash/x.js', 'dependency', 'lodash', '/a/node_modules/.pnpm/lodash@4.17.21/node_modules/lodash/x.js'],
    ['h', 'https://localhost:5173/src/app.ts', 'user', null, 'https://localhost:5173/src/app.ts'],
    ['h', 'https://localhost:5173/node_modules/.vite/deps/react.js', 'dependency', null, 'https://localhost:5173/node_modules/.vite/deps/react.js'],
  ];
  for (const [name, url, category, pkg, file] of cases) {
    it(`${name || '(anonymous)'} @ ${url || "''"} → ${category}${pkg ? ` (${pkg})` : ''}`, () => {
      assert.deepEqual(classify(name, url), { category, package: pkg, file });
    });
  }

  it('reads package names from Windows paths too', () => {
    assert.equal(packageName('C:\\app\\node_modules\\@scope\\pkg\\index.js'), '@scope/pkg');
    assert.equal(packageName('C:\\app\\src\\index.js'), null);
  });
});
