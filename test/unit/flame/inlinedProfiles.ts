/**
 * The hand-built profiles of the inlined-frames tests (unit and browser): the attribution fixture's
 * quote, which V8 inlines lineTotal into (pricing.js's lines charged to quote's frame), and twice, which
 * calls lineTotal as a frame of its own; with V8's facts saying so.
 */
import type { V8RawSignals } from '../../../src/core/v8/types';
import { anchor, file, fn, lineOf, type Frame } from '../attribution/synth';

export const APP = 'app.js';
export const PRICING = 'lib/pricing.js';
export const quote = anchor(APP, 'function quote');
export const twice = anchor(APP, 'function twice');
export const lineTotal = anchor(PRICING, 'function lineTotal');
export const callLine = lineOf(APP, 'sum += lineTotal(item)');
/** lineTotal's loop and its body: V8 charges them to its caller's frame, with pricing.js's line numbers. */
export const loop = lineOf(PRICING, 'for (let unit');
export const body = lineOf(PRICING, 'total += item.unitPrice');
export const moduleFrame = (children: Frame[]) => fn('', APP, 1, 1, { children });
const ref = (name: string, rel: string, at: [number, number]) => ({ name, file: file(rel), line: at[0], column: at[1] });
const quoteRef = ref('quote', APP, quote);
const twiceRef = ref('twice', APP, twice);
const totalRef = ref('lineTotal', PRICING, lineTotal);

/** V8's facts: lineTotal inlined into quote (and into twice, when asked). */
export function signals(intoTwice = false): V8RawSignals {
  const host = (r: typeof quoteRef, line: number) => ({ ...r, optimizations: 1, marked: 1, aborted: [], deopts: [], inlined: [totalRef], inlinedInto: [], inlineSites: [{ callee: totalRef, caller: r, line, column: 12 }] });
  return {
    version: 1, collection: { collected: true, nodeVersion: 'v22.0.0' }, mode: 'launch',
    functions: [host(quoteRef, callLine), ...(intoTwice ? [host(twiceRef, lineOf(APP, 'const a = lineTotal(items[0])'))] : [])],
  };
}

/** quote with `inlinedMs` of lineTotal's body on its frame, and twice calling lineTotal (`ownMs`) as a frame of its own. */
export function quoteAndTwice(ms: { quoteOwn: number; inlinedLoop?: number; inlinedBody: number; twiceOwn: number; lineTotalOwn: number }): Frame[] {
  return [moduleFrame([
    fn('quote', APP, quote[0], quote[1], { ticks: { [callLine]: ms.quoteOwn, ...(ms.inlinedLoop ? { [loop]: ms.inlinedLoop } : {}), [body]: ms.inlinedBody } }),
    fn('twice', APP, twice[0], twice[1], { ticks: { [twice[0] + 1]: ms.twiceOwn }, children: [fn('lineTotal', PRICING, lineTotal[0], lineTotal[1], { ticks: { [body]: ms.lineTotalOwn } })] }),
  ])];
}
