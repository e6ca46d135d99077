/**
 * Lines of a text the way V8 counts them (String::CalculateLineEnds): a line ends at \n, at \r not
 * followed by \n, at U+2028 and at U+2029 — so line numbers agree with the profiler's and V8's traces.
 */

/** Offsets at which lines start. */
export function lineStartsOf(text: string): Int32Array {
  const starts = [0];
  // indexOf is native and fast; \r-only and U+2028/9 line ends are rare, so look for them only when present.
  const rare = /[\r\u2028\u2029]/.test(text);
  if (!rare) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    return Int32Array.from(starts);
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (c === 0x2028 || c === 0x2029) starts.push(i + 1);
  }
  return Int32Array.from(starts);
}

/** 1-based line of a text offset. */
export function lineOfOffset(lineStarts: Int32Array, offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

