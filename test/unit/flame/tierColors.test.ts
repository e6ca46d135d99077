/**
 * The tier colours of media/flame.css, per scheme: every pair of tier fills stays clearly apart for
 * people with normal vision and under simulated protanopia, deuteranopia and tritanopia (Machado et al.
 * 2009, full severity), and every label colour keeps WCAG 4.5:1 contrast on its fill. The webview's
 * fallbacks (theme.ts) must be the same values.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const CSS = fs.readFileSync(path.join(__dirname, '../../../media/flame.css'), 'utf8');
const THEME_TS = fs.readFileSync(path.join(__dirname, '../../../src/webview/theme.ts'), 'utf8');
const TIERS = ['unknown', 'ignition', 'sparkplug', 'maglev', 'turbofan'];
/** CIE76 ΔE: ~2.3 is just noticeable; 20 is "clearly another colour" at a glance. */
const MIN_DELTA_E = 20;

const SIMULATIONS: Record<string, number[][] | null> = {
  normal: null,
  protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
  tritanopia: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]],
};

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);
const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
function lab([r, g, b]: number[]): number[] {
  const [x, y, z] = [(0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b, (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883];
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}
function seen(hex: string, m: number[][] | null): number[] {
  const c = rgb(hex).map(linear);
  const s = m ? m.map((row) => row[0] * c[0] + row[1] * c[1] + row[2] * c[2]) : c;
  return lab(s.map((v) => Math.min(1, Math.max(0, v))));
}
function contrast(a: string, b: string): number {
  const lum = (hex: string) => { const [r, g, b2] = rgb(hex).map(linear); return 0.2126 * r + 0.7152 * g + 0.0722 * b2; };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The --hp-tier-* and --hp-deopt* values of the first CSS block with the selector that sets them. */
function palette(selector: RegExp): Record<string, string> {
  for (const block of CSS.matchAll(new RegExp(`${selector.source}\\s*\\{([^}]*)\\}`, 'g'))) {
    const out: Record<string, string> = {};
    for (const m of block[1].matchAll(/--hp-(tier-[a-z-]+|deopt(?:-edge)?):\s*(#[0-9a-fA-F]{6})/g)) out[m[1]] = m[2].toLowerCase();
    if (Object.keys(out).length) return out;
  }
  assert.fail(`flame.css sets no tier colours under ${selector}`);
}

const SCHEMES: Record<string, RegExp> = {
  light: /:root, body\.vscode-light, body\.vscode-high-contrast-light/,
  'dark (prefers-color-scheme)': /@media \(prefers-color-scheme: dark\) \{\s*:root/,
  'dark (VS Code)': /body\.vscode-dark/,
  'high contrast': /body\.vscode-high-contrast/,
};

describe('flame: tier colours', () => {
  for (const [scheme, selector] of Object.entries(SCHEMES)) {
    it(`${scheme}: distinct under colour-vision deficiencies, readable labels, visible deopt marker`, () => {
      const p = palette(selector);
      const fills = TIERS.map((t) => p[`tier-${t}`]);
      const texts = TIERS.map((t) => p[`tier-${t}-text`]);
      assert.ok(fills.every(Boolean) && texts.every(Boolean), `all ten tier variables in ${JSON.stringify(p)}`);
      for (const [vision, m] of Object.entries(SIMULATIONS)) {
        for (let i = 0; i < fills.length; i++) {
          for (let j = i + 1; j < fills.length; j++) {
            const [a, b] = [seen(fills[i], m), seen(fills[j], m)];
            const d = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
            assert.ok(d >= MIN_DELTA_E, `${scheme}, ${vision}: ${TIERS[i]} ${fills[i]} vs ${TIERS[j]} ${fills[j]}: ΔE ${d.toFixed(1)}`);
          }
        }
      }
      fills.forEach((f, i) => assert.ok(contrast(f, texts[i]) >= 4.5, `${scheme}: ${TIERS[i]} label contrast ${contrast(f, texts[i]).toFixed(2)}`));
      // The marker sits on any fill; with its edge, one of the two always stands out.
      for (const f of fills) assert.ok(Math.max(contrast(f, p.deopt), contrast(f, p['deopt-edge'])) >= 3, `${scheme}: marker on ${f}`);
    });
  }

  it('theme.ts falls back to the same light and dark values', () => {
    const light = palette(SCHEMES.light);
    const dark = palette(SCHEMES['dark (VS Code)']);
    const list = (p: Record<string, string>, suffix: string) => JSON.stringify(TIERS.map((t) => p[`tier-${t}${suffix}`]));
    const fallback = /light: \{ fills: (\[[^\]]*\]), texts: (\[[^\]]*\]) \},\s*dark: \{ fills: (\[[^\]]*\]), texts: (\[[^\]]*\]) \}/.exec(THEME_TS);
    assert.ok(fallback, 'theme.ts has TIER_FALLBACK');
    const norm = (s: string) => JSON.stringify(JSON.parse(s.replace(/'/g, '"')));
    assert.equal(norm(fallback[1]), list(light, ''));
    assert.equal(norm(fallback[2]), list(light, '-text'));
    assert.equal(norm(fallback[3]), list(dark, ''));
    assert.equal(norm(fallback[4]), list(dark, '-text'));
  });
});
