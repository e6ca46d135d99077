/** Theme values the canvas needs, read from the CSS variables (VS Code's, or the standalone fallbacks). */
export type Scheme = 'light' | 'dark' | 'hc' | 'hc-light';

export interface Theme {
  scheme: Scheme;
  background: string;
  foreground: string;
  muted: string;
  focus: string;
  /** Outline drawn around every box in high contrast, else ''. */
  boxBorder: string;
  font: string;
  fontSize: number;
  /** V8 tier fills and their label colours, by tier code (shared/flame/tiers.ts), from --hp-tier-*. */
  tierFills: string[];
  tierTexts: string[];
  /** The deopt marker and the edge that separates it from any fill, from --hp-deopt*. */
  deopt: string;
  deoptEdge: string;
  /** Bars of blocking episodes in the flame chart's lane, from --hp-blocked. */
  blocked: string;
}

/** CSS variable names of the tier colours, in tier-code order. */
const TIER_VARS = ['unknown', 'ignition', 'sparkplug', 'maglev', 'turbofan'];
/** Used when the stylesheet lacks the variables (light, dark): the same Okabe–Ito based values as flame.css. */
const TIER_FALLBACK = {
  light: { fills: ['#d6d6d6', '#c47a4a', '#f2d31b', '#6cc0f0', '#1a6dcc'], texts: ['#1b1b1b', '#1b1b1b', '#1b1b1b', '#1b1b1b', '#ffffff'] },
  dark: { fills: ['#4a4a4a', '#b0561c', '#d8c02c', '#3ba3e3', '#0b5fc2'], texts: ['#f3f3f3', '#f3f3f3', '#1b1b1b', '#1b1b1b', '#f3f3f3'] },
};

export function readTheme(): Theme {
  const style = getComputedStyle(document.documentElement);
  const bodyStyle = getComputedStyle(document.body);
  const v = (name: string) => (bodyStyle.getPropertyValue(name) || style.getPropertyValue(name)).trim();
  const raw = v('--hp-scheme');
  const scheme: Scheme = raw === 'dark' || raw === 'hc' || raw === 'hc-light' ? raw : 'light';
  const hcBorder = v('--hp-hc-border');
  const dark = scheme === 'dark' || scheme === 'hc';
  const fallback = dark ? TIER_FALLBACK.dark : TIER_FALLBACK.light;
  return {
    scheme,
    background: v('--hp-bg') || (scheme === 'dark' || scheme === 'hc' ? '#1e1e1e' : '#ffffff'),
    foreground: v('--hp-fg') || (scheme === 'dark' || scheme === 'hc' ? '#d4d4d4' : '#1f1f1f'),
    muted: v('--hp-muted') || '#888888',
    focus: v('--hp-focus') || '#005fb8',
    boxBorder: scheme === 'hc' || scheme === 'hc-light' ? (hcBorder && hcBorder !== 'transparent' ? hcBorder : scheme === 'hc' ? '#ffffff' : '#000000') : '',
    font: v('--hp-mono') || 'monospace',
    fontSize: 12,
    tierFills: TIER_VARS.map((t, i) => v(`--hp-tier-${t}`) || fallback.fills[i]),
    tierTexts: TIER_VARS.map((t, i) => v(`--hp-tier-${t}-text`) || fallback.texts[i]),
    deopt: v('--hp-deopt') || (dark ? '#f3f3f3' : '#1b1b1b'),
    deoptEdge: v('--hp-deopt-edge') || (dark ? '#1b1b1b' : '#ffffff'),
    blocked: v('--hp-blocked') || (dark ? '#f48771' : '#c72e0f'),
  };
}

/** Calls `onChange` when the theme changes: VS Code swaps body classes; browsers switch color scheme. */
export function watchTheme(onChange: () => void): void {
  new MutationObserver(onChange).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', onChange);
}

export const isDark = (t: Theme) => t.scheme === 'dark' || t.scheme === 'hc';
