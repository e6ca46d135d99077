/** Number formatting for people: the shared formatters (same text as the CLI and the editor), in the webview's units. */
import { formatInt, formatPct, formatSignedPoints, formatUs } from '../shared/text/numbers';

/** A duration given in µs (the payload's unit). */
export const ms = (us: number): string => formatUs(us);
/** A share given as a fraction (0–1). */
export const pct = (fraction: number): string => formatPct(fraction * 100);
/** A change of share given as a fraction, in percentage points. */
export const signedPoints = (fraction: number): string => formatSignedPoints(fraction * 100);
export const int = formatInt;

/** The last path segment, for compact labels. */
export function basename(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return i >= 0 ? file.slice(i + 1) : file;
}
