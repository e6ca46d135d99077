/** After a verify against a baseline of another commit: the `hotpath compare` line that measures both interleaved. */

/** The same command line as `hotpath compare --base <commit>`: what to run after a verify against an older commit. */
export function compareCommandFor(argv: string[], base: string): string {
  const dashdash = argv.indexOf('--');
  const own = dashdash === -1 ? argv : argv.slice(0, dashdash);
  const command = dashdash === -1 ? [] : argv.slice(dashdash);
  const kept: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const a = own[i];
    if (a === 'verify') continue;
    if (a === '--runs' || a === '--name') { i++; continue; }
    if (/^--(runs|name)=/.test(a) || a === '--json') continue;
    kept.push(a);
  }
  const quote = (w: string) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`);
  return ['hotpath', 'compare', '--base', base.slice(0, 12), ...kept, ...command].map(quote).join(' ');
}

/** Why an interleaved comparison with the baseline's commit is the better test (the verify report says it). */
export { interleavedHint } from '../core/report/runs';
