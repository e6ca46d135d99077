/**
 * The one formatter per kind of number shown to people (CLI, VS Code, webview, reports): the same value
 * reads the same everywhere. Pure; no locale lookups (the first toLocaleString call costs ~20 ms of ICU
 * set-up, and output must not depend on the machine's locale).
 */

const MINUS = '\u2212';

/** 12,345 (rounded to an integer; en-US grouping). */
export function formatInt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const r = Math.round(n);
  const digits = String(Math.abs(r)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return r < 0 ? `-${digits}` : digits;
}

/** A duration in milliseconds: `0.42 ms`, `12.3 ms`, `1,373 ms`, `12.5 s` (from 10 s up). */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return `${ms} ms`;
  const a = Math.abs(ms);
  if (a >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (a >= 100) return `${formatInt(ms)} ms`;
  if (a >= 10) return `${ms.toFixed(1)} ms`;
  return `${ms.toFixed(2)} ms`;
}

/**
 * A short duration in nanoseconds, as benchmarks give time per operation: `0.42 ns`, `12.3 ns`,
 * `845 ns`, `4.56 µs`, `123 µs`, then formatMs from 1 ms up.
 */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return `${ns} ns`;
  const a = Math.abs(ns);
  if (a >= 1e6) return formatMs(ns / 1e6);
  if (a >= 1000) return `${(ns / 1000).toFixed(a >= 1e5 ? 0 : a >= 1e4 ? 1 : 2)} µs`;
  return `${ns.toFixed(a >= 100 ? 0 : a >= 10 ? 1 : 2)} ns`;
}

/** A duration in microseconds (the profile model's unit), as formatMs. */
export function formatUs(us: number): string {
  return formatMs(us / 1000);
}

/** A share in percent (0–100): `12.3%`, `0%`, `<0.1%` for a tiny non-zero share. */
export function formatPct(pct: number): string {
  if (!Number.isFinite(pct)) return `${pct}%`;
  if (pct === 0) return '0%';
  if (Math.abs(pct) < 0.05) return `${pct < 0 ? MINUS : ''}<0.1%`;
  return `${pct < 0 ? MINUS : ''}${Math.abs(pct).toFixed(1)}%`;
}

/** A change in percent with its sign: `+31.2%`, `−22%` (a real minus; one decimal below 10 unless `digits`). */
export function formatSignedPct(pct: number, digits?: number): string {
  const d = digits ?? (Math.abs(pct) < 10 ? 1 : 0);
  const text = Math.abs(pct).toFixed(d);
  if (Number(text) === 0) return `${(0).toFixed(d)}%`;
  return `${pct < 0 ? MINUS : '+'}${text}%`;
}

/** A change in percentage points: `+1.25 pp`, `−3.4 pp`. */
export function formatSignedPoints(points: number): string {
  return `${points >= 0 ? '+' : MINUS}${Math.abs(points).toFixed(Math.abs(points) < 1 ? 2 : 1)} pp`;
}

/** Requests (or operations) per second: `2,323 req/s`. */
export function formatRate(perSecond: number, unit = 'req/s'): string {
  return `${formatInt(perSecond)} ${unit}`;
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

/** Bytes in binary units (1 KB = 1024 B, as V8 and DevTools count heap sizes): `512 B`, `1.4 KB`, `23 MB`. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return `${bytes} B`;
  let v = Math.abs(bytes);
  let u = 0;
  while (v >= 1024 && u < BYTE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  const text = u === 0 ? String(Math.round(v)) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2).replace(/0$/, '');
  return `${bytes < 0 ? MINUS : ''}${text} ${BYTE_UNITS[u]}`;
}

/** A ratio: `1.23×`, `10.7×`. */
export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return `${ratio}×`;
  return `${ratio >= 10 ? ratio.toFixed(1) : ratio.toFixed(2)}×`;
}
