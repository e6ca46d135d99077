/** Number formatting for people. */
export function ms(us: number): string {
  const v = us / 1000;
  if (v >= 10_000) return `${(v / 1000).toFixed(1)} s`;
  if (v >= 100) return `${v.toFixed(0)} ms`;
  if (v >= 10) return `${v.toFixed(1)} ms`;
  return `${v.toFixed(2)} ms`;
}

export function pct(fraction: number): string {
  const v = fraction * 100;
  if (v === 0) return '0%';
  if (Math.abs(v) < 0.1) return `${v < 0 ? '-' : ''}<0.1%`;
  return `${v.toFixed(Math.abs(v) < 10 ? 1 : 0)}%`;
}

export function signedPoints(fraction: number): string {
  const v = fraction * 100;
  return `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(Math.abs(v) < 1 ? 2 : 1)} pp`;
}

/** 12,345 — by hand: the first toLocaleString call initialises ICU's number formatting (~20 ms). */
export function int(n: number): string {
  const r = Math.round(n);
  const digits = String(Math.abs(r)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return r < 0 ? `-${digits}` : digits;
}

/** The last path segment, for compact labels. */
export function basename(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}
