/** µs inside the model, ms for people: rounded to 0.01 ms / 0.01 %, enough for a table or a CodeLens. */
export function roundMs(us: number): number {
  return Math.round(us / 10) / 100;
}

export function roundPct(part: number, whole: number): number {
  return whole > 0 ? Math.round((part / whole) * 10000) / 100 : 0;
}
