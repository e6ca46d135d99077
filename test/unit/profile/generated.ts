/**
 * Generated profiles for the scanner-equivalence tests: random call trees with awkward strings (quotes,
 * backslashes, control characters, non-ASCII, astral characters, lone surrogates), unknown keys at every
 * level, odd number spellings (exponents, trailing .0, negative values, non-int32 deltas), shuffled key
 * order and random whitespace. A custom writer produces the text so that all those spellings occur.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const NAMES = ['', '(root)', 'main', 'naïve_ünïcode', 'emoji😀fn', 'quote"and\\backslash', 'ctl\u0001\u001fchars',
  'line\nbreak', 'tab\there', 'sep\u2028\u2029', 'lone\ud800surrogate', '日本語', 'get [Symbol.iterator]', 'a/b'];
const URLS = ['', 'node:internal/timers', 'file:///srv/app/src/a.js', 'file:///srv/my%20app/b.js',
  'file:///srv/app/node_modules/@scope/pkg/x.js', '/abs/path/c.js', 'https://example.com/app.js?x="1"'];
const EXTRAS: Json[] = [null, true, false, 0, -1.5e-3, 'JS', [], {}, [1, [2, [3, { deep: [null, 'x'] }]]], { codeType: 'JS', n: -0 }];

export function randomProfile(rnd: () => number, size: number): Json {
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const base = rnd() < 0.3 ? 1_000_000 : rnd() < 0.2 ? -50 : 1;
  const ids = Array.from({ length: size }, (_, i) => base + i * (rnd() < 0.5 ? 1 : 3));
  const children: number[][] = ids.map(() => []);
  for (let i = 1; i < size; i++) children[int(0, i - 1)].push(ids[i]);

  const nodes = ids.map((id, i) => {
    const node: { [key: string]: Json } = {
      id,
      callFrame: withExtras(rnd, {
        functionName: pick(NAMES),
        scriptId: rnd() < 0.2 ? int(0, 300) : String(int(0, 300)),
        url: pick(URLS),
        lineNumber: int(-1, 4000),
        columnNumber: int(-1, 200),
      }),
      hitCount: int(0, 50),
    };
    if (children[i].length > 0 || rnd() < 0.2) node.children = children[i];
    if (rnd() < 0.5) node.positionTicks = Array.from({ length: int(0, 4) }, () => withExtras(rnd, { line: int(1, 4000), ticks: int(0, 30) }));
    if (rnd() < 0.1) node.deoptReason = rnd() < 0.5 ? 'Optimization is always disabled' : '';
    return withExtras(rnd, node);
  });

  const count = int(0, 80);
  const samples = Array.from({ length: count }, () => pick(ids));
  const floats = rnd() < 0.3;
  const timeDeltas = Array.from({ length: count }, () => {
    const r = rnd();
    if (floats && r < 0.2) return int(-500, 5000) + 0.25;
    if (r < 0.05) return -int(1, 100);
    if (r < 0.08) return 2147483647;
    if (r < 0.1) return 3e9 + int(0, 1000); // beyond int32: switches the column to Float64Array
    return int(0, 1500);
  });
  const start = 1.7e15 + int(0, 1e6);
  const profile: { [key: string]: Json } = { nodes, startTime: start, endTime: start + int(0, 1e7), samples, timeDeltas };
  if (rnd() < 0.3) profile.$vscode = { rootPath: '/ws', locations: [{ callFrame: { url: 'x' }, locations: [] }] };
  return withExtras(rnd, profile);
}

function withExtras(rnd: () => number, obj: { [key: string]: Json }): { [key: string]: Json } {
  if (rnd() < 0.25) obj[rnd() < 0.5 ? 'unknownKey' : 'parentx'] = EXTRAS[Math.floor(rnd() * EXTRAS.length)];
  return obj;
}

/** Serializes with random whitespace, escape choices, number spellings and key order. */
export function writeJson(value: Json, rnd: () => number, style: 'compact' | 'messy'): string {
  const out: string[] = [];
  const ws = () => {
    if (style === 'compact' || rnd() < 0.6) return;
    out.push([' ', '\n', '\t', '\r\n', '  \n  '][Math.floor(rnd() * 5)]);
  };
  const write = (v: Json): void => {
    ws();
    if (v === null || typeof v === 'boolean') out.push(String(v));
    else if (typeof v === 'number') out.push(style === 'compact' ? JSON.stringify(v) : spellNumber(v, rnd));
    else if (typeof v === 'string') out.push(style === 'compact' ? JSON.stringify(v) : spellString(v, rnd));
    else if (Array.isArray(v)) {
      out.push('[');
      v.forEach((item, i) => {
        if (i > 0) out.push(',');
        write(item);
        ws();
      });
      ws();
      out.push(']');
    } else {
      const keys = Object.keys(v);
      if (style === 'messy') keys.sort(() => rnd() - 0.5);
      out.push('{');
      keys.forEach((k, i) => {
        if (i > 0) out.push(',');
        ws();
        out.push(style === 'compact' ? JSON.stringify(k) : spellString(k, rnd));
        ws();
        out.push(':');
        write(v[k]);
        ws();
      });
      ws();
      out.push('}');
    }
  };
  write(value);
  return out.join('');
}

/** The same value, spelled in one of several valid JSON ways. */
function spellNumber(v: number, rnd: () => number): string {
  if (!Number.isInteger(v) || Math.abs(v) > 1e15 || Object.is(v, -0)) return JSON.stringify(v);
  switch (Math.floor(rnd() * 6)) {
    case 0: return `${v}e0`;
    case 1: return `${v}.0`;
    case 2: return v === 0 ? "0e-1" : `${v}0e-1`; // "00e-1" would be invalid JSON
    case 3: return `${v}E+00`;
    default: return String(v);
  }
}

function spellString(s: string, rnd: () => number): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    const u = () => `\\u${code.toString(16).padStart(4, '0')}`;
    if (ch === '"') out += rnd() < 0.5 ? '\\"' : u();
    else if (ch === '\\') out += rnd() < 0.5 ? '\\\\' : u();
    else if (ch === '\n') out += rnd() < 0.5 ? '\\n' : u();
    else if (ch === '\t') out += rnd() < 0.5 ? '\\t' : u();
    else if (code < 0x20) out += u();
    else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(s.charCodeAt(i + 1)) && rnd() < 0.5) out += s[i] + s[++i]; // raw 4-byte UTF-8
    else if (code >= 0xd800 && code <= 0xdfff) out += u(); // surrogates: escaped (halves of a pair or lone)
    else if (ch === '/' && rnd() < 0.5) out += '\\/';
    else out += rnd() < 0.15 ? (rnd() < 0.5 ? u() : u().toUpperCase().replace('\\U', '\\u')) : ch;
  }
  return out + '"';
}

const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;
