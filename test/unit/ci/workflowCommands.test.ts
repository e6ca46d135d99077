import * as assert from 'node:assert/strict';
import { githubFileEntry, terminalJson, terminalText, workflowCommand, workflowLogText } from '../../../src/shared/text/safe';
import { HOSTILE_CI_NAMES, HOSTILE_NAMES } from '../../hostileText';
import { workflowCommandsIn } from '../../helpers/actionsRunner';

const HOSTILE = [...HOSTILE_NAMES, ...HOSTILE_CI_NAMES];

describe('GitHub Actions surfaces (src/shared/text/safe.ts)', () => {
  it('workflowCommand: a hostile message and title stay one command, its data and properties exactly as given', () => {
    for (const h of HOSTILE) {
      const line = workflowCommand('error', { file: `lib/${h}.js`, line: 12, title: `Hotpath: ${h}` }, `slower in ${h}`);
      assert.doesNotMatch(line, /[\r\n\u2028\u2029]/, JSON.stringify(line));
      const cmds = workflowCommandsIn(line);
      assert.equal(cmds.length, 1, `${JSON.stringify(h)} → ${JSON.stringify(cmds)}`);
      const [c] = cmds;
      assert.equal(c.command, 'error');
      assert.deepEqual(Object.keys(c.properties).sort(), ['file', 'line', 'title'], JSON.stringify(c.properties));
      assert.equal(c.properties.line, '12');
      // Controls other than line breaks, and bidi overrides, are removed; everything else arrives as written.
      // eslint-disable-next-line no-control-regex
      const clean = (s: string) => s.replace(/\r\n?|[\u2028\u2029\u0085\v\f]/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, '');
      assert.equal(c.data, clean(`slower in ${h}`));
      assert.equal(c.properties.file, clean(`lib/${h}.js`).replace(/\n/g, ' '));
      assert.equal(c.properties.title, clean(`Hotpath: ${h}`).replace(/\n/g, ' '));
    }
  });

  it('workflowCommand: % : , in properties and % \\r \\n in data are escaped as the runner unescapes them', () => {
    assert.equal(workflowCommand('warning', { file: 'a,b:c.js', line: 3, title: 'T: x, y' }, '100% bad\r\nline 2'),
      '::warning file=a%2Cb%3Ac.js,line=3,title=T%3A x%2C y::100%25 bad%0Aline 2');
    assert.equal(workflowCommand('notice', {}, 'faster'), '::notice::faster');
  });

  it('workflowLogText / terminalText: no line Hotpath prints is a command, whatever program text it carries', () => {
    for (const h of HOSTILE) {
      const text = `Functions:\n  ${h}  lib/x.js:3\n${h}\n   ${h} and more`;
      assert.deepEqual(workflowCommandsIn(workflowLogText(text)), [], JSON.stringify(h));
      assert.deepEqual(workflowCommandsIn(terminalText(text, true)), [], JSON.stringify(h));
      assert.deepEqual(workflowCommandsIn(terminalText(h)), [], JSON.stringify(h));
    }
    assert.equal(workflowLogText('  ::error::x\nok ##[warning]y\r::notice::z'), '  %3A:error::x\nok ##%5Bwarning]y\r%3A:notice::z');
    // Text that only looks like it stays as it was.
    assert.equal(workflowLogText('listening on [::1]:3000 · a::b'), 'listening on [::1]:3000 · a::b');
  });

  it('terminalJson: a ##[ in a string parses back to the same value and no line of the document is a command', () => {
    for (const h of HOSTILE) {
      const doc = terminalJson({ hotspots: [{ function: h }], names: [h] });
      assert.deepEqual(JSON.parse(doc), { hotspots: [{ function: h }], names: [h] });
      assert.deepEqual(workflowCommandsIn(doc), [], JSON.stringify(h));
    }
  });

  it('githubFileEntry: a value cannot end its entry and add another; names are checked', () => {
    assert.equal(githubFileEntry('verdict', 'slower'), 'verdict=slower\n');
    const entry = githubFileEntry('name', 'x\nverdict=faster\nEOF', 'EOF');
    assert.equal(entry, 'name<<EOF_\nx\nverdict=faster\nEOF\nEOF_\n');
    assert.throws(() => githubFileEntry('a=b', 'x'), RangeError);
    assert.throws(() => githubFileEntry('a<<b', 'x'), RangeError);
  });
});
