import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.[cm]?[jt]sx?$/.test(e.name) ? [p] : [];
  });
}

const IMPORTS_VSCODE = /(from\s+['"]vscode['"])|(require\(\s*['"]vscode['"]\s*\))|(import\(\s*['"]vscode['"]\s*\))/;

/** Dependencies point one way: only src/vscode may import the vscode API. */
describe('architecture', () => {
  for (const area of ['core', 'shared', 'webview', 'cli', 'mcp']) {
    it(`src/${area} never imports 'vscode'`, () => {
      const offenders = sourceFiles(path.join(ROOT, 'src', area)).filter((f) => IMPORTS_VSCODE.test(fs.readFileSync(f, 'utf8')));
      assert.deepEqual(offenders.map((f) => path.relative(ROOT, f)), []);
    });
  }

  it('the check itself recognises a vscode import', () => {
    assert.ok(IMPORTS_VSCODE.test("import * as vscode from 'vscode';"));
    assert.ok(IMPORTS_VSCODE.test("const vscode = require('vscode')"));
    assert.ok(!IMPORTS_VSCODE.test("import { x } from './vscode-like';"));
  });

  it('src/core does not import the CLI or front ends', () => {
    const offenders = sourceFiles(path.join(ROOT, 'src', 'core')).filter((f) => /from\s+['"][./]*\/(cli|vscode|webview|mcp)\//.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(offenders.map((f) => path.relative(ROOT, f)), []);
  });
});
