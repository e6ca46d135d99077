// Every quick pick and input box a Hotpath command opens stays open when focus moves (src/vscode/
// pickerFocus.ts says why: the focus VS Code hands back to a webview after the palette closes arrives
// late and closed pickers in CI). A picker added without it would pass every test until that race.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
}

/** The text of each call `name(...)` in `source`, parentheses balanced (strings hold none unbalanced here). */
function calls(source: string, name: string): string[] {
  const out: string[] = [];
  for (let at = source.indexOf(`${name}(`); at >= 0; at = source.indexOf(`${name}(`, at + 1)) {
    let depth = 0;
    let end = at + name.length;
    for (; end < source.length; end++) {
      if (source[end] === '(') depth++;
      else if (source[end] === ')' && --depth === 0) break;
    }
    out.push(source.slice(at, end + 1));
  }
  return out;
}

describe('pickers stay open when focus moves', () => {
  it('every showQuickPick and showInputBox under src/vscode passes STAY, and every createQuickPick sets ignoreFocusOut', () => {
    const missing: string[] = [];
    let seen = 0;
    for (const file of sources(path.join(ROOT, 'src', 'vscode'))) {
      const source = fs.readFileSync(file, 'utf8');
      for (const name of ['window.showQuickPick', 'window.showInputBox']) {
        for (const call of calls(source, name)) {
          seen++;
          if (!/\.\.\.STAY\b/.test(call)) missing.push(`${path.relative(ROOT, file)}: ${call.slice(0, 90).replace(/\s+/g, ' ')}`);
        }
      }
      if (source.includes('window.createQuickPick') && !/\.ignoreFocusOut = true/.test(source)) missing.push(`${path.relative(ROOT, file)}: createQuickPick without ignoreFocusOut`);
    }
    assert.ok(seen >= 10, `${seen} pickers found: the scan no longer finds them`);
    assert.deepEqual(missing, []);
  });
});
