// The README's security table names the commands the status-bar tooltip trusts (a tooltip link can
// run only these): it must say what the code does. It said "five" while the code trusted seven.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const NUMBERS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

describe('the status bar\'s trusted commands, in the README', () => {
  it('the README counts and names exactly the commands src/vscode/status/statusBar.ts trusts', () => {
    const source = fs.readFileSync(path.join(ROOT, 'src', 'vscode', 'status', 'statusBar.ts'), 'utf8');
    const list = /const TRUSTED_COMMANDS = \[([^\]]*)\]/.exec(source);
    assert.ok(list, 'TRUSTED_COMMANDS not found in statusBar.ts');
    const trusted = [...list[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
    assert.ok(trusted.length > 0);
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const claim = /status-bar tooltip \(which is trusted for (\w+) Hotpath commands: ([^)]*)\)/.exec(readme);
    assert.ok(claim, 'the README no longer says which commands the tooltip trusts');
    assert.equal(claim[1], NUMBERS[trusted.length]);
    assert.deepEqual([...claim[2].matchAll(/`([^`]+)`/g)].map((m) => m[1]), trusted);
  });
});
