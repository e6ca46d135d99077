import { strict as assert } from 'node:assert';
import { formatBytes, formatInt, formatMs, formatPct, formatSignedPct, labelText, logText, mdCode, mdEscape, notificationText, terminalText } from '../../src/shared/text';

describe('shared text', () => {
  describe('numbers (one formatter per kind)', () => {
    it('durations, shares, counts, bytes', () => {
      assert.equal(formatMs(0.421), '0.42 ms');
      assert.equal(formatMs(12.34), '12.3 ms');
      assert.equal(formatMs(1373.2), '1,373 ms');
      assert.equal(formatMs(12_500), '12.5 s');
      assert.equal(formatPct(84.06), '84.1%');
      assert.equal(formatPct(0), '0%');
      assert.equal(formatPct(0.01), '<0.1%');
      assert.equal(formatSignedPct(-22.4), '\u221222%');
      assert.equal(formatSignedPct(3.14), '+3.1%');
      // A change that rounds to zero has no direction to show (an app verified against its own baseline).
      assert.equal(formatSignedPct(-0.04), '0.0%');
      assert.equal(formatSignedPct(0.3, 0), '0%');
      assert.equal(formatInt(1234567.4), '1,234,567');
      assert.equal(formatBytes(512), '512 B');
      assert.equal(formatBytes(1434), '1.4 KB');
      assert.equal(formatBytes(23 * 1024 * 1024), '23.0 MB');
    });
  });

  describe('untrusted text per surface', () => {
    const hostile = ['a\r\rb', 'x\r\n\r\n[y](command:workbench.action.terminal.sendSequence?%7B%7D)', 'p\u2028q\u2029r', '``tick`` ```', '\u001b]52;c;cHduZWQ=\u0007', '\u001b[2J\u001b[1A', 'rtl\u202eevil'];

    it('mdCode: no line terminator and no backtick run ends the span', () => {
      for (const h of hostile) {
        const span = mdCode(h);
        assert.doesNotMatch(span, /[\r\n\u2028\u2029]/, JSON.stringify(span));
        const fence = /^`+/.exec(span)![0];
        const inner = span.slice(fence.length, span.length - fence.length);
        assert.ok(!inner.includes(fence), `fence ${fence} not inside ${JSON.stringify(span)}`);
        assert.ok(span.endsWith(fence));
      }
    });

    it('mdEscape: no link or line break survives', () => {
      const out = mdEscape('[open](command:hotpath.baselines.open?%5B%22%2Fetc%2Fpasswd%22%5D)\r\n\r\n# title');
      assert.doesNotMatch(out, /(^|[^\\])\[/);
      assert.doesNotMatch(out, /[\r\n]/);
      assert.ok(out.includes('\\#'));
    });

    it('notificationText: no [label](link) can form, text stays readable', () => {
      const out = notificationText('Reveal [x](command:workbench.action.terminal.sendSequence?{"text":"echo pwned\\n"})');
      assert.doesNotMatch(out, /\[[^\]]*\]\(/);
      assert.ok(out.includes('command:workbench'), 'the text itself is still shown');
    });

    it('terminalText: escape sequences become visible', () => {
      for (const h of hostile) assert.doesNotMatch(terminalText(h), /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u202e]/);
      assert.equal(terminalText('\u001b[2J'), '\\x1b[2J');
      assert.equal(terminalText('line 1\nline 2', true), 'line 1\nline 2');
    });

    it('logText and labelText stay on one line', () => {
      for (const h of hostile) {
        assert.doesNotMatch(logText(h), /[\r\n\u2028\u2029\u001b]/);
        assert.doesNotMatch(labelText(h), /[\r\n\u2028\u2029\u001b]/);
      }
    });
  });
});
