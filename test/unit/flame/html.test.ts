/**
 * The page helper (CSP, escaping of everything profile-controlled), the protocol guard, and the
 * tree helpers the webview relies on (pre-order fast path, leaf-dropping filter).
 */
import * as assert from 'node:assert/strict';
import { loadProfile } from '../../../src/core/profile';
import { aggregate, filterTree } from '../../../src/core/flame';
import { normalizeTree, treeFromPreorder, type FrameTree } from '../../../src/shared/flame/tree';
import { contentSecurityPolicy, escapeHtml, flameHtml, scriptSafeJson } from '../../../src/shared/webviewHtml';
import { isWebviewMessage } from '../../../src/shared/protocol';
import { fixture } from '../profile/helpers';

const NONCE = 'abcdefghijklmnopqrstuvwx';

describe('flame: page helper', () => {
  it('standalone: strict CSP with the nonce, no remote sources, everything inline', () => {
    const html = flameHtml({ nonce: NONCE, title: 'x', script: { inline: 'void 0' }, style: { inline: 'body{}' }, embedded: { headerJson: '{}', base64: 'AAAA' } });
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)![1].replace(/&#39;/g, "'");
    assert.equal(csp, contentSecurityPolicy(NONCE));
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, new RegExp(`script-src 'nonce-${NONCE}'(;|$)`));
    assert.doesNotMatch(csp, /unsafe|https?:|\*/);
    assert.doesNotMatch(html, /\b(src|href)=/, 'nothing is loaded from elsewhere');
    assert.match(html, /<script type="application\/octet-stream" id="hotpath-data">AAAA<\/script>/);
  });

  it('VS Code: scripts and styles by webview URI, allowed through cspSource only', () => {
    const html = flameHtml({ nonce: NONCE, cspSource: 'https://file+.vscode-resource.vscode-cdn.net', title: 't', script: { src: 'https://file+.vscode-resource.vscode-cdn.net/dist/webview.js' }, style: { href: 'https://file+.vscode-resource.vscode-cdn.net/media/flame.css' } });
    assert.match(html, /style-src https:\/\/file\+\.vscode-resource\.vscode-cdn\.net &#39;nonce-/);
    assert.match(html, new RegExp(`<script nonce="${NONCE}" src="https://file\\+\\.vscode-resource`));
  });

  it('escapes profile-controlled text: title, embedded JSON, and closing tags in inlined code', () => {
    const evil = '</script><img src=x onerror="window.__pwned=1"><!--';
    const html = flameHtml({ nonce: NONCE, title: evil, script: { inline: `const s = "${evil}";` }, style: { inline: '/* </style><b>x</b> */' }, embedded: { headerJson: JSON.stringify({ name: evil }), base64: 'AA<script>' } });
    // Outside the (raw-text) script body, no markup survives; inside it, the closing tag is broken.
    assert.equal(html.split('<img').length - 1, 1, 'only inside the inlined script');
    assert.ok(html.includes('const s = "<\\/script><img'));
    assert.equal(html.split('</script>').length - 1, 3, 'only the three script blocks close');
    assert.ok(!html.includes('</style><b>'));
    assert.match(html, /<title>&lt;\/script&gt;&lt;img/);
    assert.deepEqual(JSON.parse(scriptSafeJson(JSON.stringify({ name: evil, sep: '\u2028' }))), { name: evil, sep: '\u2028' });
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('refuses a weak nonce', () => {
    assert.throws(() => flameHtml({ nonce: 'short', title: '', script: { inline: '' }, style: { inline: '' } }));
  });

  it('protocol: only well-formed webview messages pass the guard', () => {
    assert.ok(isWebviewMessage({ type: 'ready' }));
    assert.ok(isWebviewMessage({ type: 'openSource', file: '/a.ts', line: 3, column: 1 }));
    assert.ok(!isWebviewMessage({ type: 'openSource', file: '', line: 3, column: 1 }));
    assert.ok(!isWebviewMessage({ type: 'openSource', file: '/a.ts', line: '3', column: 1 }));
    assert.ok(!isWebviewMessage({ type: 'eval', code: 'x' }));
    assert.ok(!isWebviewMessage(null));
  });
});

describe('flame: tree helpers', () => {
  const same = (a: FrameTree, b: FrameTree) => {
    assert.equal(a.count, b.count);
    assert.deepEqual(Array.from(a.parent), Array.from(b.parent));
    assert.deepEqual(Array.from(a.func), Array.from(b.func));
    for (let i = 0; i < a.count; i++) {
      assert.ok(Math.abs(a.totalUs[i] - b.totalUs[i]) < 1e-6 && Math.abs(a.startUs[i] - b.startUs[i]) < 1e-6 && a.end[i] === b.end[i] && a.depth[i] === b.depth[i]);
    }
  };

  it('treeFromPreorder rebuilds a payload tree in O(n), and falls back when the order is wrong', async () => {
    const { tree } = aggregate(await loadProfile(fixture('deps'), { sourceMaps: false }));
    const fast = treeFromPreorder(tree.parent, tree.func, tree.selfUs);
    assert.equal(fast.newIndex, null);
    same(fast.tree, tree);
    // Reverse two siblings: no longer left heavy → normalised instead.
    const p = Int32Array.from(tree.parent);
    const shuffled = normalizeTree(tree.count, p, tree.func, tree.selfUs).tree;
    same(shuffled, tree);
    const bad = Int32Array.from(tree.parent);
    bad[1] = -1; bad[0] = 1; // root is not frame 0
    assert.notEqual(treeFromPreorder(bad, tree.func, tree.selfUs).newIndex, null);
  });

  it('filterTree: the leaf fast path gives the same tree as the general re-merge', async () => {
    const model = await loadProfile(fixture('deps'), { sourceMaps: false });
    const { tree } = aggregate(model);
    const quiet = (f: number) => ['idle', 'program', 'gc'].includes(model.functions[f].category);
    const fast = filterTree(tree, quiet);
    // Force the general path: also hide a function that never occurs (has no frames), then compare.
    const general = normalizeTree(fast.tree.count, fast.tree.parent, fast.tree.func, fast.tree.selfUs).tree;
    same(fast.tree, general);
    for (let i = 0; i < tree.count; i++) if (!quiet(tree.func[i])) assert.equal(fast.tree.func[fast.mapTo[i]], tree.func[i]);
  });
});
