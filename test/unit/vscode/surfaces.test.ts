/**
 * Every VS Code surface that shows profile or app text, fed the hostile names of issue 10: the
 * Markdown of the status-bar tooltip and of hovers (parsed with marked, the parser family VS Code
 * renders with), notifications (VS Code's own link syntax), labels, the log channel and the Debug
 * Console. Plus a lint over src/vscode: notifications and progress messages can only be shown
 * through src/vscode/notify.ts, which makes their text safe.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Lexer, type Token } from 'marked';
import { labelText, notificationText } from '../../../src/shared/text';
import { codeLensText, deoptHover, deoptLabel, functionHover, lineHover, v8FunctionMarkdown } from '../../../src/vscode/annotations/format';
import { renderStatus } from '../../../src/vscode/status/render';
import { compareRuns } from '../../../src/core/stats/compare';
import { safeLog } from '../../../src/vscode/safeLog';
import { HOSTILE_NAMES, RAW_CONTROL } from '../../hostileText';

const ROOT = path.resolve(__dirname, '../../..');

/** VS Code's notification link syntax (src/vs/base/common/linkedText.ts, parseLinkedText). */
const NOTIFICATION_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

/** All tokens of a Markdown document, depth first. */
function tokensOf(markdown: string): Token[] {
  const out: Token[] = [];
  const walk = (list: Token[] | undefined) => {
    for (const t of list ?? []) {
      out.push(t);
      const inner = t as Token & { tokens?: Token[]; items?: Token[]; rows?: Token[][][]; header?: Token[][] };
      walk(inner.tokens);
      walk(inner.items);
    }
  };
  walk(Lexer.lex(markdown, { gfm: true }));
  return out;
}

/** What a hostile name may never become in Markdown: a link, raw HTML, a heading or an extra paragraph. */
function assertInert(markdown: string, label: string): void {
  const bad = tokensOf(markdown).filter((t) => t.type === 'link' || t.type === 'html' || t.type === 'heading' || t.type === 'image');
  assert.deepEqual(bad.map((t) => `${t.type}: ${t.raw}`), [], `${label}: ${JSON.stringify(markdown)}`);
  assert.doesNotMatch(markdown, /[\r\u2028\u2029\u0085]/, `${label}: no line terminator`);
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('VS Code surfaces with hostile profile text', () => {
  describe('notifications', () => {
    it('notificationText leaves no link VS Code would render, for every hostile name', () => {
      for (const name of HOSTILE_NAMES) {
        const text = notificationText(`Hotpath: ${name} is not a file on this machine.`);
        assert.deepEqual([...text.matchAll(NOTIFICATION_LINK)].map((m) => m[0]), [], JSON.stringify(text));
        assert.doesNotMatch(text, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/, JSON.stringify(text));
      }
      // The exact link of the report still reads, but does not link.
      const report = notificationText('Reveal [in Explorer](command:workbench.action.terminal.sendSequence?{"text":"echo pwned\\n"})');
      assert.ok(report.includes('command:workbench.action.terminal.sendSequence'));
      assert.equal([...report.matchAll(NOTIFICATION_LINK)].length, 0);
    });

    it('lint: every notification and progress message in src/vscode goes through notify.ts', () => {
      const offenders: string[] = [];
      for (const file of sourceFiles(path.join(ROOT, 'src', 'vscode'))) {
        const rel = path.relative(ROOT, file);
        const source = fs.readFileSync(file, 'utf8');
        source.split('\n').forEach((line, i) => {
          const at = `${rel}:${i + 1}: ${line.trim()}`;
          if (!rel.endsWith('notify.ts') && /\bwindow\.show(Information|Warning|Error)Message\b/.test(line)) offenders.push(`direct notification — use showInfo/showWarning/showError: ${at}`);
          if (/\.report\(\{/.test(line) && /message:/.test(line) && !/message: progressText\(/.test(line)) offenders.push(`progress message without progressText: ${at}`);
          const title = /withProgress\(\{[^}]*?\btitle(?::\s*([^,}]+))?/.exec(line);
          if (title && !/^progressText\(|^'[^'$]*'$/.test((title[1] ?? 'title').trim())) offenders.push(`progress title without progressText: ${at}`);
          if (/sendErrorResponse\(/.test(line) && /format:/.test(line) && !/format: notificationText\(/.test(line)) offenders.push(`debug adapter error without notificationText: ${at}`);
        });
      }
      assert.deepEqual(offenders, []);
    });

    it('the lint recognises what it forbids', () => {
      assert.ok(/\bwindow\.show(Information|Warning|Error)Message\b/.test('void vscode.window.showErrorMessage(`x`)'));
      assert.ok(/withProgress\(\{[^}]*?\btitle(?::\s*([^,}]+))?/.test('withProgress({ location: x, title, cancellable: true }'));
    });
  });

  describe('status-bar tooltip (trusted for five commands)', () => {
    it('a hostile function or file name forms no link, HTML or heading', () => {
      for (const name of HOSTILE_NAMES) {
        const r = renderStatus({ kind: 'profiled', function: name, selfPct: 41.2, ownPct: 60, ownDetail: `10.0% in ${name}, ${name}`, file: `/app/${name}.js`, line: 3, profilePath: '/p' });
        assertInert(r.tooltip.replace(/\[\$\([a-z-]+\) [A-Za-z ]+\]\(command:hotpath\.[A-Za-z.]+\)/g, ''), `tooltip for ${JSON.stringify(name)}`);
        // Our own links are the only ones, and they are exactly ours.
        const links = tokensOf(r.tooltip).filter((t) => t.type === 'link').map((t) => (t as Token & { href: string }).href);
        assert.deepEqual(links, ['command:hotpath.showFlamegraph', 'command:hotpath.establishBaseline']);
        assert.doesNotMatch(r.text, RAW_CONTROL, r.text);
        assert.ok(!r.text.replace('$(flame)', '').includes('$('), r.text);
      }
    });

    it('the code span holds the whole name, whatever line terminators and backticks it has', () => {
      const name = 'a\r\r`b`\u2028c';
      const r = renderStatus({ kind: 'profiled', function: name, selfPct: 1, ownPct: 1, file: '/a.js', line: 1, profilePath: '/p' });
      const spans = tokensOf(r.tooltip).filter((t) => t.type === 'codespan').map((t) => (t as Token & { text: string }).text);
      assert.deepEqual(spans, ['a  `b` c']);
    });

    it('verify: baseline names and warnings (app text) stay prose', () => {
      const run = (r: number) => ({ requestsPerSecond: r, p99Ms: 10, p50Ms: 5, errors: 0, perSecond: [] });
      const comparison = compareRuns([run(1000), run(1100), run(900)], [run(1010), run(900), run(1100)]);
      for (const name of HOSTILE_NAMES) {
        const r = renderStatus({ kind: 'verified', name, comparison: comparison as never, warnings: [name] });
        const links = tokensOf(r.tooltip).filter((t) => t.type === 'link').map((t) => (t as Token & { href: string }).href);
        assert.deepEqual(links, ['command:hotpath.verifyAgainstBaseline', 'command:hotpath.showFlamegraph', 'command:hotpath.baselines.open'], JSON.stringify(r.tooltip));
      }
    });
  });

  describe('hovers', () => {
    it('line, function and deopt hovers: hostile names and paths stay text', () => {
      for (const name of HOSTILE_NAMES) {
        const callers = [{ function: name, file: `/app/${name}`, line: 2, callSite: true, sharePct: 50 }, { function: name, file: `/app/${name}`, line: null, callSite: false, candidateLines: [3, 4], sharePct: 20 }, { function: name, file: `/app/${name}`, line: 9, callSite: false, inlined: true, sharePct: 10 }];
        const callee = { function: name, where: name, file: `/x/${name}`, line: 1, ms: 5, pct: 1, callLine: 3 };
        assertInert(lineHover({ file: '/a.js', line: 3, selfMs: 5, selfPct: 1, totalMs: 50, totalPct: 10, ownMs: 50, ownPct: 10, samples: 5, function: name, placement: 'inlined', inlinedInto: name, calls: [callee], callers }, name, (f) => f), 'line hover');
        assertInert(lineHover({ file: '/a.js', line: 3, selfMs: 5, selfPct: 1, totalMs: 5, totalPct: 1, ownMs: 5, ownPct: 1, samples: 5, function: name, placement: 'inferred', inlinedInto: name, calls: [], callers }, name, (f) => f), 'inferred line hover');
        assertInert(functionHover({ function: name, file: '/a.js', line: 1, selfMs: 1, selfPct: 1, totalMs: 1, totalPct: 1, ownMs: 9, ownPct: 9, ownParts: [callee], rank: 1, callers,
          notPlaced: { ms: 1, pct: 1, reasons: [name] }, unplacedCalls: [{ function: name, ms: 1, pct: 1, candidateLines: [1, 2] }], inlinedMs: 1, inlinedInto: [name] }, name, (f) => f, v8FunctionMarkdown({
          tier: 'TurboFan', optimizations: 1, inlined: [name], inlinedInto: [name],
          deopts: [{ kind: name, reason: name, file: `/x/${name}`, line: 3, column: 1, count: 1, osr: false }],
          notOptimized: { reason: name, cause: 'never-marked' }, notInlined: { reason: name },
        } as never)), 'function hover');
        assertInert(deoptHover({ file: '/a.js', line: 1, column: 1, function: name, kind: name, reason: name, count: 2, inlinedFrom: name } as never), 'deopt hover');
      }
    });

    it('worker threads: a hostile worker file name in the thread labels stays text (hovers, status tooltip)', () => {
      for (const name of HOSTILE_NAMES) {
        const thread = `worker 1 (${name})`;
        const all = ['main', thread, `worker 2 (${name})`];
        assertInert(lineHover({ file: '/a.js', line: 3, selfMs: 5, selfPct: 1, totalMs: 5, totalPct: 1, ownMs: 5, ownPct: 1, samples: 5, function: 'f', placement: 'own', calls: [], callers: [], threads: [thread] }, 'p', (f) => f, all), 'line hover with threads');
        assertInert(functionHover({ function: 'f', file: '/a.js', line: 1, selfMs: 1, selfPct: 1, totalMs: 1, totalPct: 1, ownMs: 1, ownPct: 1, ownParts: [], rank: 1, callers: [], threads: all.slice(1) }, 'p', (f) => f, undefined, all), 'function hover with threads');
        const r = renderStatus({ kind: 'profiled', function: 'f', selfPct: 1, ownPct: 1, file: '/a.js', line: 1, profilePath: '/p', thread, threads: 3 });
        const links = tokensOf(r.tooltip).filter((t) => t.type === 'link').map((t) => (t as Token & { href: string }).href);
        assert.deepEqual(links, ['command:hotpath.showFlamegraph', 'command:hotpath.establishBaseline'], JSON.stringify(r.tooltip));
        const lens = labelText(codeLensText({ function: 'f', file: '/a.js', line: 1, selfMs: 1, selfPct: 1, totalMs: 1, totalPct: 1, ownMs: 1, ownPct: 1, ownParts: [], rank: 1, callers: [], threads: [thread] }));
        assert.doesNotMatch(lens, RAW_CONTROL, JSON.stringify(lens));
        assert.ok(!lens.includes('$('), JSON.stringify(lens));
      }
    });
  });

  describe('labels (status bar, CodeLens, decorations, tree items, quick picks)', () => {
    it('one line, no escape sequence, no icon syntax', () => {
      for (const name of HOSTILE_NAMES) {
        const f = { function: name, file: '/a.js', line: 1, selfMs: 1, selfPct: 1, totalMs: 1, totalPct: 1, ownMs: 50, ownPct: 50, ownParts: [{ function: name, where: name, file: '', line: null, ms: 49, pct: 49 }], notPlaced: { ms: 1, pct: 1, reasons: [name] }, rank: 1, callers: [] };
        for (const label of [labelText(codeLensText(f, name)), labelText(deoptLabel({ reason: name, count: 2 } as never)), labelText(name)]) {
          assert.doesNotMatch(label, RAW_CONTROL, JSON.stringify(label));
          assert.ok(!label.includes('$('), JSON.stringify(label));
        }
      }
    });
  });

  describe('log channel', () => {
    it('each record stays one line; other members pass through', () => {
      const records: string[] = [];
      const channel = { info: (m: string) => records.push(m), error: (m: string | Error) => records.push(String(m)), name: 'Hotpath', show: function (this: { name: string }) { return this.name; } };
      const log = safeLog(channel);
      for (const name of HOSTILE_NAMES) log.info(`Opening ${name}: failed\n[info] forged record`);
      log.error(new Error('boom\n[error] forged'));
      assert.equal(records.length, HOSTILE_NAMES.length + 1);
      for (const r of records) assert.doesNotMatch(r, /[\r\n\u2028\u2029\u001b\u009b]/, JSON.stringify(r));
      assert.equal(log.name, 'Hotpath');
      assert.equal(log.show(), 'Hotpath', 'methods keep their receiver');
    });
  });

  describe('Debug Console', () => {
    it('run summaries, warnings and failures from the app are shown, not interpreted', async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { HotpathDebugSession } = require('../../../src/vscode/debug/debugSession') as typeof import('../../../src/vscode/debug/debugSession');
      const hostile = HOSTILE_NAMES.join(' | ');
      const controller = {
        execute: async () => ({ result: { warnings: [{ code: 'X', message: hostile }], profilePath: `/tmp/${hostile}` }, summary: `Profile saved: ${hostile}` }),
      };
      const session = new HotpathDebugSession(controller as never, '/ws', { load: {}, runs: 3, samplingIntervalMicros: 1000 } as never);
      const output: string[] = [];
      (session as unknown as { sendEvent(e: { event: string; body?: { output?: string } }): void }).sendEvent = (e) => { if (e.event === 'output') output.push(e.body!.output!); };
      (session as unknown as { sendResponse(): void }).sendResponse = () => undefined;
      (session as unknown as { launchRequest(r: unknown, a: unknown): void }).launchRequest({}, { mode: 'profile', command: ['node', `app${hostile}.js`], env: { NODE_ENV: 'production' } });
      // The launch runs on: wait for its output (state), not for a fixed time.
      for (const deadline = Date.now() + 5000; output.length < 3 && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 10));
      assert.ok(output.length >= 3, output.join(''));
      // eslint-disable-next-line no-control-regex
      for (const o of output) assert.doesNotMatch(o.replace(/\n$/, ''), /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202e]/, JSON.stringify(o));
    });
  });
});
