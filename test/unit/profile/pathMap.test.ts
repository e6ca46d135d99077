/**
 * Another machine's paths → this workspace: the longest suffix under a root, `--map-path`, ambiguity,
 * and never a file that merely has the same name.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { mapPaths } from '../../../src/core/profile/pathMap';

describe('path mapping from production to the workspace', () => {
  let ws: string;
  let other: string;
  const touch = (root: string, rel: string) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), '//\n');
  };
  before(() => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-ws-'));
    other = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-ws2-'));
    for (const f of ['dist/server.js', 'src/orders.ts', 'server.js', 'lib/util.js', 'node_modules/express/lib/router/index.js', 'config.js']) touch(ws, f);
    touch(other, 'lib/util.js');
  });
  after(() => { fs.rmSync(ws, { recursive: true, force: true }); fs.rmSync(other, { recursive: true, force: true }); });

  it('maps by the longest suffix; a file-name-only match only where the same prefix is confirmed', async () => {
    const { map, report } = await mapPaths([
      '/app/dist/server.js', '/usr/src/app/src/orders.ts', '/app/server.js', '/app/node_modules/express/lib/router/index.js',
      '/elsewhere/config.js', 'node:internal/timers', '', '/opt/tool/missing.js',
    ], { roots: [ws] });
    assert.equal(map.get('/app/dist/server.js'), path.join(ws, 'dist/server.js'));
    assert.equal(map.get('/usr/src/app/src/orders.ts'), path.join(ws, 'src/orders.ts'));
    assert.equal(map.get('/app/server.js'), path.join(ws, 'server.js'), '/app was confirmed by dist/server.js');
    assert.equal(map.get('/app/node_modules/express/lib/router/index.js'), path.join(ws, 'node_modules/express/lib/router/index.js'));
    assert.equal(map.has('/elsewhere/config.js'), false, 'same file name, unconfirmed directory: not mapped');
    const why = Object.fromEntries(report.notFound.map((n) => [n.file, n.reason]));
    assert.match(why['/elsewhere/config.js'], /only its file name matches .*config\.js; give --map-path \/elsewhere=DIR/);
    assert.match(why['/opt/tool/missing.js'], /no file under .* ends with any part of this path/);
    assert.equal(report.files, 6, 'node: internals and natives are not files');
    assert.equal(report.mapped, 4);
    assert.equal(report.how.suffix, 4);
  });

  it('--map-path wins, and says when its target does not exist', async () => {
    const { map, report } = await mapPaths(['/build/x/lib/util.js', '/build/x/lib/gone.js'], { roots: [ws], mappings: [{ from: '/build/x', to: other }] });
    assert.equal(map.get('/build/x/lib/util.js'), path.join(other, 'lib/util.js'));
    assert.match(report.notFound[0].reason, /maps it to .*gone\.js, which does not exist/);
  });

  it('two workspace folders matching equally well is ambiguous: not mapped', async () => {
    const { map, report } = await mapPaths(['/srv/app/lib/util.js'], { roots: [ws, other] });
    assert.equal(map.size, 0);
    assert.match(report.notFound[0].reason, /ambiguous: .* and .* match equally well/);
  });

  it('a path that exists here is itself; relative paths are the app\'s working directory', async () => {
    const here = path.join(ws, 'lib/util.js');
    const { map } = await mapPaths([here, './dist/server.js', `file://${here}`], { roots: [ws] });
    assert.equal(map.get(here), here);
    assert.equal(map.get('./dist/server.js'), path.join(ws, 'dist/server.js'));
    assert.equal(map.get(`file://${here}`), here);
  });
});
