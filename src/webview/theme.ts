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
}

export function readTheme(): Theme {
  const style = getComputedStyle(document.documentElement);
  const bodyStyle = getComputedStyle(document.body);
  const v = (name: string) => (bodyStyle.getPropertyValue(name) || style.getPropertyValue(name)).trim();
  const raw = v('--hp-scheme');
  const scheme: Scheme = raw === 'dark' || raw === 'hc' || raw === 'hc-light' ? raw : 'light';
  const hcBorder = v('--hp-hc-border');
  return {
    scheme,
    background: v('--hp-bg') || (scheme === 'dark' || scheme === 'hc' ? '#1e1e1e' : '#ffffff'),
    foreground: v('--hp-fg') || (scheme === 'dark' || scheme === 'hc' ? '#d4d4d4' : '#1f1f1f'),
    muted: v('--hp-muted') || '#888888',
    focus: v('--hp-focus') || '#005fb8',
    boxBorder: scheme === 'hc' || scheme === 'hc-light' ? (hcBorder && hcBorder !== 'transparent' ? hcBorder : scheme === 'hc' ? '#ffffff' : '#000000') : '',
    font: v('--hp-mono') || 'monospace',
    fontSize: 12,
  };
}

/** Calls `onChange` when the theme changes: VS Code swaps body classes; browsers switch color scheme. */
export function watchTheme(onChange: () => void): void {
  new MutationObserver(onChange).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  window.matchMedia('(prefers-color-scheme: dark)').addEventListener('change', onChange);
}

export const isDark = (t: Theme) => t.scheme === 'dark' || t.scheme === 'hc';
