/**
 * Source mapping: recorded TypeScript apps (esbuild inline and linked maps, tsc per-file maps) report
 * .ts files and lines; js-debug's annotations fill in when the compiled files are gone; broken or
 * missing maps never throw.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { applySourceMaps, buildProfileModel, loadProfile, rankHotspots, rankLines, type FileReader } from '../../../src/core/profile';
import { findSourceMappingUrl } from '../../../src/core/profile/sourceMaps';
import { fixture, fixtureReader, lineMatching, markerLine, missingReader } from './helpers';

const MATRIX = '/hotpath-fixtures/ts-app/src/matrix.ts';

describe('source maps: recorded TypeScript apps', () => {
  const variants: [string, string][] = [
    ['ts-esbuild-inline', 'ts-app/dist-inline/main.js'],
    ['ts-esbuild-external', 'ts-app/dist-external/main.js'],
    ['ts-tsc', 'ts-app/dist-tsc/matrix.js'],
  ];
  for (const [name, compiled] of variants) {
    it(`${name}: the hot function and hot line are reported in matrix.ts at the right lines`, async () => {
      const reader = fixtureReader();
      const model = await loadProfile(fixture(name), { fs: reader });
      assert.deepEqual(model.sourceMaps.failures, []);
      assert.ok(model.sourceMaps.scriptsMapped >= 1);

      const [top] = rankHotspots(model, { limit: 1 });
      assert.equal(top.function, 'multiply');
      assert.equal(top.file, MATRIX);
      assert.equal(top.line, lineMatching('ts-app/src/matrix.ts', /export function multiply\(/));
      assert.ok(top.selfPct > 60, `multiply self ${top.selfPct}%`);

      const [line] = rankLines(model, { limit: 1 });
      assert.deepEqual({ file: line.file, line: line.line, function: line.function }, { file: MATRIX, line: markerLine('ts-app/src/matrix.ts', '@ts-hot-line'), function: 'multiply' });

      for (const h of rankHotspots(model, { limit: 50 })) {
        if (h.category === 'user' && h.function !== '(anonymous)') assert.match(h.file, /\.ts$/, `${h.function} in ${h.file}`);
      }
      for (const l of rankLines(model, { limit: 50 })) {
        if (l.file.startsWith('/hotpath-fixtures/')) assert.match(l.file, /\.ts$/, `${l.function} line ${l.line} in ${l.file}`);
      }
      // Each script (and map) is read once, however many functions and lines it has.
      assert.equal(new Set(reader.reads).size, reader.reads.length, reader.reads.join(', '));

      // Without mapping: the compiled file and its (different) lines.
      const plain = await loadProfile(fixture(name), { sourceMaps: false });
      const [compiledTop] = rankHotspots(plain, { limit: 1 });
      assert.equal(compiledTop.file, `/hotpath-fixtures/${compiled}`);
      assert.equal(compiledTop.line, lineMatching(compiled, /function multiply\(/));
      assert.notEqual(rankLines(plain, { limit: 1 })[0].line, line.line, 'the fixture must distinguish compiled from original lines');
      assert.equal(plain.sourceMaps.applied, false);
    });
  }

  it('ts-jsdebug: without the compiled files, js-debug\'s $vscode locations give the .ts positions', async () => {
    const model = await loadProfile(fixture('ts-jsdebug'), { fs: missingReader });
    assert.equal(model.rootPath, '/hotpath-fixtures/ts-app');
    assert.equal(model.sourceMaps.scriptsMapped, 0);
    const [top] = rankHotspots(model, { limit: 1 });
    assert.deepEqual([top.function, top.file, top.line], ['multiply', MATRIX, lineMatching('ts-app/src/matrix.ts', /export function multiply\(/)]);
    const [line] = rankLines(model, { limit: 1 });
    assert.deepEqual([line.file, line.line], [MATRIX, markerLine('ts-app/src/matrix.ts', '@ts-hot-line')]);
  });

  it('ts-jsdebug: the annotations change nothing else (same hotspots and lines as the plain recording)', async () => {
    const annotated = await loadProfile(fixture('ts-jsdebug'), { sourceMaps: false });
    const plain = await loadProfile(fixture('ts-esbuild-external'), { sourceMaps: false });
    assert.deepEqual(rankHotspots(annotated, { limit: 100 }), rankHotspots(plain, { limit: 100 }));
    assert.deepEqual(rankLines(annotated, { limit: 100 }), rankLines(plain, { limit: 100 }));
    assert.equal(annotated.lines.originalLine.filter((l) => l > 0).length, 0, 'sourceMaps: false maps nothing');
  });
});

describe('source maps: resolution rules and failures', () => {
  const SCRIPT = '/app/dist/x.js';
  const code = (tail: string) => `function a() {\n  work();\n}\n${tail}`;
  // Generated lines 1, 2, 3 → original lines 1, 2, 4 of the single source.
  const map = (extra: object = {}) => JSON.stringify({ version: 3, sources: ['x.ts'], names: [], mappings: 'AAAA;AACA;AAEA', ...extra });
  const profileText = JSON.stringify({
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', scriptId: '0', url: '', lineNumber: -1, columnNumber: -1 }, children: [2] },
      { id: 2, callFrame: { functionName: 'a', scriptId: '5', url: pathToFileURL(SCRIPT).href, lineNumber: 0, columnNumber: 10 }, hitCount: 2, positionTicks: [{ line: 2, ticks: 1 }, { line: 3, ticks: 1 }] },
    ],
    startTime: 0,
    endTime: 100,
    samples: [2, 2],
    timeDeltas: [0, 50],
  });
  const virtualFs = (files: Record<string, string>): FileReader & { reads: string[] } => {
    const reads: string[] = [];
    return {
      reads,
      readFile: async (file) => {
        reads.push(file);
        if (file in files) return files[file];
        throw Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' });
      },
    };
  };
  async function mapped(files: Record<string, string>) {
    const model = buildProfileModel(profileText);
    await applySourceMaps(model, virtualFs(files));
    const a = model.functions.find((f) => f.name === 'a')!;
    const lines = rankLines(model).map((l) => `${l.file}:${l.line}`).sort();
    return { model, a, lines };
  }

  it('resolves a relative map path, then the map\'s sourceRoot and sources', async () => {
    const { a, lines, model } = await mapped({
      [SCRIPT]: code('//# sourceMappingURL=maps/x.js.map\n'),
      '/app/dist/maps/x.js.map': map({ sourceRoot: '../../src/' }),
    });
    assert.deepEqual([a.originalFile, a.originalLine, a.originalColumn], ['/app/src/x.ts', 1, 1]);
    assert.deepEqual(lines, ['/app/src/x.ts:2', '/app/src/x.ts:4']);
    assert.deepEqual(model.sourceMaps, { applied: true, scriptsMapped: 1, functionsMapped: 1, linesMapped: 2, failures: [] });
  });

  it('reads inline data: URL maps, base64 or percent-encoded, resolving sources next to the script', async () => {
    const base64 = await mapped({ [SCRIPT]: code(`//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(map()).toString('base64')}`) });
    assert.deepEqual(base64.lines, ['/app/dist/x.ts:2', '/app/dist/x.ts:4']);
    const percent = await mapped({ [SCRIPT]: code(`//# sourceMappingURL=data:application/json,${encodeURIComponent(map())}`) });
    assert.deepEqual(percent.lines, base64.lines);
  });

  it('uses <script>.map when the script has no sourceMappingURL comment', async () => {
    const { lines } = await mapped({ [SCRIPT]: code(''), [`${SCRIPT}.map`]: map() });
    assert.deepEqual(lines, ['/app/dist/x.ts:2', '/app/dist/x.ts:4']);
  });

  it('maps a line by its first segment that has a source, and leaves a line without segments unmapped', async () => {
    // Line 2 starts with a generated-only segment; line 3 has no segments at all.
    const { lines } = await mapped({ [SCRIPT]: code(''), [`${SCRIPT}.map`]: map({ mappings: 'AAAA;A,CACA;' }) });
    assert.deepEqual(lines, ['/app/dist/x.js:3', '/app/dist/x.ts:2']);
  });

  it('never throws on a broken, missing or remote map: positions stay compiled and the failure is reported', async () => {
    const cases: [Record<string, string>, RegExp | null][] = [
      [{ [SCRIPT]: code('//# sourceMappingURL=x.js.map') }, /ENOENT/],
      [{ [SCRIPT]: code('//# sourceMappingURL=x.js.map'), '/app/dist/x.js.map': '{"version":3,' }, /JSON/],
      [{ [SCRIPT]: code('//# sourceMappingURL=x.js.map'), '/app/dist/x.js.map': '{"version":3,"sources":7,"mappings":5}' }, /./],
      [{ [SCRIPT]: code('//# sourceMappingURL=https://cdn.example/x.js.map') }, /is not a file/],
      [{ [SCRIPT]: code('//# sourceMappingURL=data:application/json;base64,!!!') }, /./],
      [{}, null], // the script itself is gone: nothing to map, nothing to report
    ];
    for (const [files, reason] of cases) {
      const { a, lines, model } = await mapped(files);
      assert.equal(a.originalFile, undefined);
      assert.deepEqual(lines, ['/app/dist/x.js:2', '/app/dist/x.js:3']);
      if (reason === null) {
        assert.deepEqual(model.sourceMaps.failures, []);
        assert.deepEqual(model.warnings, []);
      } else {
        assert.equal(model.sourceMaps.failures.length, 1, JSON.stringify(files).slice(0, 80));
        assert.match(model.sourceMaps.failures[0].reason, reason);
        assert.deepEqual(model.warnings.map((w) => w.code), ['SOURCE_MAP_UNUSABLE']);
        assert.match(model.warnings[0].message, /file:\/\/\/app\/dist\/x\.js/);
      }
    }
  });

  it('survives a reader that rejects with a non-Error or throws synchronously', async () => {
    for (const reader of [
      { readFile: () => Promise.reject('nope') },
      { readFile: (): Promise<string> => { throw new TypeError('sync'); } },
    ] as FileReader[]) {
      const model = buildProfileModel(profileText);
      await applySourceMaps(model, reader);
      assert.equal(model.functions.find((f) => f.name === 'a')!.originalFile, undefined);
    }
  });

  it('uses the real file system by default', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hotpath-maps-'));
    try {
      const script = path.join(dir, 'dist', 'x.js');
      fs.mkdirSync(path.dirname(script));
      fs.writeFileSync(script, code('//# sourceMappingURL=x.js.map\n'));
      fs.writeFileSync(`${script}.map`, map({ sources: ['../src/x.ts'] }));
      const profileFile = path.join(dir, 'p.cpuprofile');
      fs.writeFileSync(profileFile, profileText.split(pathToFileURL(SCRIPT).href).join(pathToFileURL(script).href));
      // The original is not on disk (a package published without its src/): the installed file stays the
      // position, with the original kept as secondary, so nothing points at a file nobody can open.
      const missing = await loadProfile(profileFile);
      const m = missing.functions.find((f) => f.name === 'a')!;
      assert.equal(m.originalFile, undefined);
      assert.deepEqual(m.unavailableSource && [m.unavailableSource.file, m.unavailableSource.line], [path.join(dir, 'src', 'x.ts'), 1]);
      fs.mkdirSync(path.join(dir, 'src'));
      fs.writeFileSync(path.join(dir, 'src', 'x.ts'), 'export function a() {}\n');
      const model = await loadProfile(profileFile);
      const a = model.functions.find((f) => f.name === 'a')!;
      assert.deepEqual([a.originalFile, a.originalLine], [path.join(dir, 'src', 'x.ts'), 1]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('finds the last sourceMappingURL annotation only in a comment', () => {
    assert.equal(findSourceMappingUrl('x\n//# sourceMappingURL=a.js.map\n'), 'a.js.map');
    assert.equal(findSourceMappingUrl('x\n//@ sourceMappingURL=old.map'), 'old.map');
    assert.equal(findSourceMappingUrl('x\n/*# sourceMappingURL=c.map */'), 'c.map');
    assert.equal(findSourceMappingUrl('const s = "//# sourceMappingURL=fake.map";\n//# sourceMappingURL=real.map'), 'real.map');
    assert.equal(findSourceMappingUrl('//# sourceMappingURL=first.map\nconst s = "sourceMappingURL=nope";'), 'first.map');
    assert.equal(findSourceMappingUrl('no annotation'), null);
  });
});
