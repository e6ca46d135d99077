/**
 * A single-pass JSON scanner specialised for .cpuprofile files.
 *
 * Why not JSON.parse: on big profiles (hundreds of MB, mostly the `samples` and `timeDeltas` arrays)
 * JSON.parse needs the whole file as a JS string plus a boxed array element per number, which is slower
 * and takes more memory than the file itself several times over. This scanner reads the raw bytes once,
 * writes numbers straight into typed arrays, and only creates JS strings for callFrame fields (interned:
 * a profile repeats the same few hundred urls and names).
 *
 * It is still a strict JSON parser for the document it reads: any key order, whitespace, escapes
 * (incl. \uXXXX and surrogate pairs), negative numbers and exponents; unknown keys are skipped with full
 * validation; anything malformed throws a ProfileInvalid HotpathError that says where and why.
 *
 * One exception to "bytes only": a small `nodes` array (≤ 4 MB of text, V8's layout) is handed to the
 * native JSON.parse, which beats a not-yet-optimized JS scanner there (see parsedNodes.ts). The number
 * arrays always go through intRun, which is faster than JSON.parse even before V8 optimizes it.
 *
 * The buffer must have PADDING zero bytes after `length`: a 0 byte is never valid where the scanner
 * looks, so every loop stops at the end of the data without a bounds check of its own.
 */
import type { HotpathError } from '../common/errors';
import { badJson, emptyFile, notAProfile, truncated } from './errors';
import { NodeTable } from './nodeTable';
import { readParsedNodes } from './parsedNodes';

export const PADDING = 8;

/** What the scanner extracts: raw ids and columns; tree building and validation happen in tree.ts. */
export interface RawProfile {
  nodeCount: number;
  /** Per node (file order). Strings are indices into `strings`. */
  id: Int32Array;
  functionName: Int32Array;
  url: Int32Array;
  scriptId: Int32Array;
  lineNumber: Int32Array;
  columnNumber: Int32Array;
  hitCount: Int32Array;
  /** Id from a node's own `parent` field (trace-style profiles); NaN when absent. */
  parentId: Float64Array;
  /** String index of deoptReason; -1 when absent. */
  deoptReason: Int32Array;
  /** Children ids of node i: childIds[childStart[i] .. childStart[i] + childCount[i]). */
  childStart: Int32Array;
  childCount: Int32Array;
  childIds: Int32Array;
  /** positionTicks of node i: tickLine/tickCount[tickStart[i] .. tickStart[i] + tickCountOf[i]). */
  tickStart: Int32Array;
  tickCountOf: Int32Array;
  tickLine: Int32Array;
  /** Ticks per line; importers of other formats put each line's weight here (µs, bytes), hitCount then 0. */
  tickCount: Int32Array | Float64Array;
  strings: string[];
  startTime: number;
  endTime: number;
  /** Node ids, as in the file. */
  samples: Int32Array;
  timeDeltas: Int32Array | Float64Array;
  /** Byte range of the `$vscode` value (js-debug annotations), if present. */
  vscode: { start: number; end: number } | null;
}

const enum Ch {
  Tab = 9,
  Lf = 10,
  Cr = 13,
  Space = 32,
  Quote = 34,
  Plus = 43,
  Comma = 44,
  Minus = 45,
  Dot = 46,
  Slash = 47,
  D0 = 48,
  D1 = 49,
  D9 = 57,
  Colon = 58,
  UpperA = 65,
  UpperE = 69,
  UpperF = 70,
  LBracket = 91,
  Backslash = 92,
  RBracket = 93,
  LowerA = 97,
  LowerB = 98,
  LowerE = 101,
  LowerF = 102,
  LowerN = 110,
  LowerR = 114,
  LowerT = 116,
  LowerU = 117,
  LBrace = 123,
  RBrace = 125,
}

interface Key {
  text: string;
  bytes: Uint8Array;
  /** `"text":`, as V8 writes a member name. */
  member: Uint8Array;
}
const keys = (...texts: string[]): Key[] => texts.map((text) => ({ text, bytes: Buffer.from(text, 'latin1'), member: Buffer.from(`"${text}":`, 'latin1') }));

const TOP_KEYS = keys('nodes', 'startTime', 'endTime', 'samples', 'timeDeltas', '$vscode', 'head', 'traceEvents', 'profile');
const enum Top { Nodes, StartTime, EndTime, Samples, TimeDeltas, VsCode, Head, TraceEvents, Profile }
const NODE_KEYS = keys('id', 'callFrame', 'hitCount', 'children', 'positionTicks', 'parent', 'deoptReason');
const enum NodeKey { Id, CallFrame, HitCount, Children, PositionTicks, Parent, DeoptReason }
const FRAME_KEYS = keys('functionName', 'scriptId', 'url', 'lineNumber', 'columnNumber');
const enum FrameKey { FunctionName, ScriptId, Url, LineNumber, ColumnNumber }
const TICK_KEYS = keys('line', 'ticks');
const enum TickKey { Line, Ticks }

const TICK_LINE_PREFIX = Buffer.from('{"line":', 'latin1');
const TICK_TICKS_INFIX = Buffer.from(',"ticks":', 'latin1');
const INTERN_CACHE_SIZE = 4096; // a power of two
/**
 * The end of the nodes array in V8's layout. Its quote follows a comma, so it is a real quote, never one
 * inside a string (those are escaped); JSON.parse then proves the slice is exactly the nodes array.
 */
const NODES_END = Buffer.from('],"startTime":', 'latin1');
/** Largest nodes array handed to JSON.parse: its object tree is then a few MB, irrelevant next to the file. */
const NATIVE_NODES_MAX_BYTES = 4 << 20;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** `nodes[3].hitCount` for node fields, the bare name (e.g. `"startTime"`) for top-level ones (node -1). */
const fieldLabel = (node: number, field: string) => (node < 0 ? field : `nodes[${node}].${field}`);

export interface ScanOptions {
  /** Let JSON.parse read small `nodes` arrays (default true). Tests turn it off to test the scanner alone. */
  nativeNodes?: boolean;
}

/** Parse a padded buffer holding `length` bytes of a .cpuprofile. Throws HotpathError(ProfileInvalid). */
export function scanProfile(buf: Buffer, length: number, source: string, options: ScanOptions = {}): RawProfile {
  return new Scanner(buf, length, source, options.nativeNodes ?? true).parse();
}

class Scanner {
  private readonly nodes = new NodeTable();

  // The last string token: bytes [strStart, strEnd) between the quotes.
  private strStart = 0;
  private strEnd = 0;
  private strEscaped = false;
  private strNonAscii = false;
  // Fields keep one representation for the scanner's lifetime (num is a double from the start, the
  // arrays are never null): a field changing from Smi to double, or null to object, changes the
  // object's map and throws away every optimized method that saw the old one.
  // The last scalar number read by scanNumber.
  private num = NaN;
  // The last number array read by scanNumberArray: ints, or floats when arrIsFloat.
  private arrInts: Int32Array = new Int32Array(0);
  private arrFloats: Float64Array = new Float64Array(0);
  private arrIsFloat = false;
  // Results of intRun: elements stored so far, and whether it stopped at the array's closing bracket.
  private runCount = 0;
  private runEnded = false;
  private runFull = false;
  // Set by memberAt: the position after a recognised member name's colon.
  private memberEnd = 0;
  // Length of the first of samples/timeDeltas read, to size the second exactly; -1 before.
  private knownArrayLength = -1;
  private skipStack = new Uint8Array(64);
  // Intern cache: byte position, length and string id of a recent string per slot (see internString).
  private readonly cacheStart = new Int32Array(INTERN_CACHE_SIZE).fill(-1);
  private readonly cacheLength = new Int32Array(INTERN_CACHE_SIZE);
  private readonly cacheId = new Int32Array(INTERN_CACHE_SIZE);

  constructor(
    private readonly buf: Buffer,
    private readonly len: number,
    private readonly source: string,
    private readonly useNativeNodes: boolean,
  ) {
    if (buf.length < len + PADDING) throw new Error('scanProfile: buffer needs PADDING bytes of slack');
    buf.fill(0, len, len + PADDING);
  }

  /** The document at `start` (0, or where a `{"profile": …}` wrapper's value begins). */
  parse(start = 0): RawProfile {
    const buf = this.buf;
    let p = start;
    if (start === 0 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) p = 3; // tolerate a UTF-8 BOM
    p = this.skipWs(p);
    if (p >= this.len) throw emptyFile(this.source);
    if (buf[0] === 0x1f && buf[1] === 0x8b) {
      throw notAProfile(this.source, 'it is gzip-compressed', 'Decompress it (e.g. `gunzip`) and open the .cpuprofile inside.');
    }
    const first = buf[p];
    if (first !== Ch.LBrace) {
      const kind = this.describeValue(p);
      if (kind === null) throw this.unexpected(p, 'at the start of the file');
      this.skipValue(p); // report syntax errors first: a damaged file should say so
      throw notAProfile(
        this.source,
        first === Ch.LBracket
          ? 'it is a JSON array, not an object (this looks like a Chrome performance trace: a list of trace events)'
          : `it is ${kind}, not a JSON object`,
        first === Ch.LBracket
          ? 'Open a trace in Chrome DevTools\' Performance panel; Hotpath reads .cpuprofile files (e.g. from `node --cpu-prof`).'
          : undefined,
      );
    }

    let samples: Int32Array | null = null;
    let deltas: Int32Array | Float64Array | null = null;
    let startTime = NaN;
    let endTime = NaN;
    let sawNodes = false;
    let sawHead = false;
    let sawTrace = false;
    let vscode: { start: number; end: number } | null = null;
    let wrapped: { start: number; end: number } | null = null;
    const inside = 'inside the top-level object';

    p = this.skipWs(p + 1);
    if (buf[p] !== Ch.RBrace) {
      for (;;) {
        if (buf[p] !== Ch.Quote) throw this.unexpected(p, inside);
        p = this.scanString(p, inside);
        const key = this.matchKey(TOP_KEYS);
        p = this.expectColon(p, inside);
        switch (key) {
          case Top.Nodes:
            if (buf[p] !== Ch.LBracket) throw this.wrongType(p, `"nodes"`, 'an array');
            // A repeated key replaces the earlier value, as with JSON.parse.
            this.nodes.clear();
            p = this.readNodes(p);
            sawNodes = true;
            break;
          case Top.StartTime:
            p = this.scanScalar(p, -1, '"startTime"');
            startTime = this.num;
            break;
          case Top.EndTime:
            p = this.scanScalar(p, -1, '"endTime"');
            endTime = this.num;
            break;
          case Top.Samples:
            p = this.scanNumberArray(p, 'samples', true);
            samples = this.arrInts;
            break;
          case Top.TimeDeltas:
            p = this.scanNumberArray(p, 'timeDeltas', false);
            deltas = this.arrIsFloat ? this.arrFloats : this.arrInts;
            break;
          case Top.VsCode: {
            const start = p;
            p = this.skipValue(p);
            vscode = { start, end: p };
            break;
          }
          case Top.Profile:
            // A saved Profiler.stop response: {"profile": {nodes, samples, …}}.
            if (buf[p] === Ch.LBrace) {
              const start = p;
              p = this.skipValue(p);
              wrapped = { start, end: p };
            } else {
              p = this.skipValue(p);
            }
            break;
          default:
            if (key === Top.Head) sawHead = true;
            if (key === Top.TraceEvents) sawTrace = true;
            p = this.skipValue(p);
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === Ch.Comma) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === Ch.RBrace) break;
        throw this.unexpected(p, inside);
      }
    }
    p = this.skipWs(p + 1);
    if (p < this.len) throw badJson(this.source, `unexpected ${this.describeByte(p)} after the end of the JSON document`, p, this.position(p));

    if (!sawNodes && wrapped) {
      // Scan the wrapped object as the document: the bytes after it are the wrapper's, read already,
      // so they can become the scanner's zero padding.
      this.buf.fill(0, wrapped.end, Math.min(wrapped.end + PADDING, this.len));
      return new Scanner(this.buf, wrapped.end, this.source, this.useNativeNodes).parse(wrapped.start);
    }
    if (!sawNodes) {
      if (sawTrace) {
        throw notAProfile(this.source, 'it is a Chrome performance trace ("traceEvents"), not a .cpuprofile',
          'Open it in Chrome DevTools\' Performance panel, or record a .cpuprofile with `node --cpu-prof`.');
      }
      if (sawHead) {
        throw notAProfile(this.source, 'it uses the legacy format with a nested "head" tree instead of a "nodes" array',
          'Load it in a current Chrome DevTools and save it again, or re-record it with a current Node.js or Chrome.');
      }
      throw this.schema('it has no "nodes" array');
    }
    if (samples === null) throw this.schema('it has no "samples" array');
    if (deltas === null) throw this.schema('it has "samples" but no "timeDeltas" array');
    if (samples.length !== deltas.length) {
      throw this.schema(`"samples" has ${samples.length} entries but "timeDeltas" has ${deltas.length}; they must be the same length`);
    }
    if (Number.isNaN(startTime) || Number.isNaN(endTime)) throw this.schema(`it has no "${Number.isNaN(startTime) ? 'startTime' : 'endTime'}"`);

    const n = this.nodes;
    const count = n.count;
    return {
      nodeCount: count,
      id: n.id.subarray(0, count),
      functionName: n.functionName.subarray(0, count),
      url: n.url.subarray(0, count),
      scriptId: n.scriptId.subarray(0, count),
      lineNumber: n.lineNumber.subarray(0, count),
      columnNumber: n.columnNumber.subarray(0, count),
      hitCount: n.hitCount.subarray(0, count),
      parentId: n.parentId.subarray(0, count),
      deoptReason: n.deoptReason.subarray(0, count),
      childStart: n.childStart.subarray(0, count),
      childCount: n.childCount.subarray(0, count),
      childIds: n.childIds.view(),
      tickStart: n.tickStart.subarray(0, count),
      tickCountOf: n.tickCountOf.subarray(0, count),
      tickLine: n.tickLine.view(),
      tickCount: n.tickCount.view(),
      strings: n.strings,
      startTime,
      endTime,
      samples,
      timeDeltas: deltas,
      vscode,
    };
  }

  // ---- nodes --------------------------------------------------------------------------------------

  /**
   * The `nodes` array at p. Small arrays in V8's standard layout (`"nodes":[...],"startTime":`) go
   * through the native JSON.parse (see parsedNodes.ts); everything else, and anything that path does
   * not accept, through the scanner.
   */
  private readNodes(p: number): number {
    if (this.useNativeNodes) {
      const window = this.buf.subarray(p, Math.min(this.len, p + NATIVE_NODES_MAX_BYTES));
      const end = window.indexOf(NODES_END);
      if (end > 0) {
        let nodes: unknown;
        try {
          nodes = JSON.parse(this.buf.toString('utf8', p, p + end + 1));
        } catch {
          nodes = undefined; // the scanner will say what is wrong, and where
        }
        if (nodes !== undefined && readParsedNodes(nodes, this.nodes)) return p + end + 1;
        this.nodes.clear();
      }
    }
    return this.scanNodes(p);
  }

  private scanNodes(p: number): number {
    const buf = this.buf;
    const inside = 'inside the "nodes" array';
    p = this.skipWs(p + 1);
    if (buf[p] === Ch.RBracket) return p + 1;
    for (;;) {
      if (buf[p] !== Ch.LBrace) {
        throw this.wrongType(p, `nodes[${this.nodes.count}]`, 'an object');
      }
      p = this.scanNode(p);
      p = this.skipWs(p);
      const c = buf[p];
      if (c === Ch.Comma) {
        p = this.skipWs(p + 1);
        continue;
      }
      if (c === Ch.RBracket) return p + 1;
      throw this.unexpected(p, inside);
    }
  }

  private scanNode(p: number): number {
    const buf = this.buf;
    const n = this.nodes;
    const i = n.add();
    const inside = 'inside a node object';
    let hasId = false;
    let hasFrame = false;
    let next = 0; // the key V8 writes next (see memberAt)
    p = this.skipWs(p + 1);
    if (buf[p] !== Ch.RBrace) {
      for (;;) {
        if (buf[p] !== Ch.Quote) throw this.unexpected(p, inside);
        let key = this.memberAt(p, NODE_KEYS, next);
        if (key >= 0) {
          p = this.skipWs(this.memberEnd);
        } else {
          p = this.scanString(p, inside);
          key = this.matchKey(NODE_KEYS);
          p = this.expectColon(p, inside);
        }
        next = key + 1;
        switch (key) {
          case NodeKey.Id:
            p = this.scanInt(p, i, 'id');
            n.id[i] = this.num;
            hasId = true;
            break;
          case NodeKey.CallFrame:
            if (buf[p] !== Ch.LBrace) throw this.wrongType(p, `nodes[${i}].callFrame`, 'an object');
            p = this.scanCallFrame(p, i);
            hasFrame = true;
            break;
          case NodeKey.HitCount:
            p = this.scanInt(p, i, 'hitCount');
            n.hitCount[i] = this.num;
            break;
          case NodeKey.Children: {
            // A repeated key replaces the earlier value, as JSON.parse does.
            n.childIds.length = n.childStart[i];
            p = this.scanChildren(p, i);
            n.childCount[i] = n.childIds.length - n.childStart[i];
            break;
          }
          case NodeKey.PositionTicks:
            n.tickLine.length = n.tickCount.length = n.tickStart[i];
            p = this.scanPositionTicks(p, i);
            n.tickCountOf[i] = n.tickLine.length - n.tickStart[i];
            break;
          case NodeKey.Parent:
            p = this.scanInt(p, i, 'parent');
            n.parentId[i] = this.num;
            break;
          case NodeKey.DeoptReason:
            if (buf[p] === Ch.Quote) {
              p = this.scanString(p, inside);
              n.deoptReason[i] = this.strEnd > this.strStart ? this.internString() : -1;
            } else {
              n.deoptReason[i] = -1;
              p = this.skipValue(p); // null or anything else: not a reason
            }
            break;
          default:
            p = this.skipValue(p);
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === Ch.Comma) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === Ch.RBrace) break;
        throw this.unexpected(p, inside);
      }
    }
    if (!hasId) throw this.schema(`nodes[${i}] has no "id"`);
    if (!hasFrame) throw this.schema(`nodes[${i}] (id ${n.id[i]}) has no "callFrame"`);
    return p + 1;
  }

  private scanCallFrame(p: number, i: number): number {
    const buf = this.buf;
    const n = this.nodes;
    const inside = 'inside a callFrame object';
    // A repeated "callFrame" replaces the earlier one entirely, as with JSON.parse.
    n.functionName[i] = n.url[i] = n.scriptId[i] = -1;
    n.lineNumber[i] = n.columnNumber[i] = -1;
    let next = 0;
    p = this.skipWs(p + 1);
    if (buf[p] !== Ch.RBrace) {
      for (;;) {
        if (buf[p] !== Ch.Quote) throw this.unexpected(p, inside);
        let key = this.memberAt(p, FRAME_KEYS, next);
        if (key >= 0) {
          p = this.skipWs(this.memberEnd);
        } else {
          p = this.scanString(p, inside);
          key = this.matchKey(FRAME_KEYS);
          p = this.expectColon(p, inside);
        }
        next = key + 1;
        switch (key) {
          case FrameKey.FunctionName:
          case FrameKey.Url:
            if (buf[p] !== Ch.Quote) {
              throw this.wrongType(p, `nodes[${i}].callFrame.${FRAME_KEYS[key].text}`, 'a string');
            }
            p = this.scanString(p, inside);
            if (key === FrameKey.Url) n.url[i] = this.internString();
            else n.functionName[i] = this.internString();
            break;
          case FrameKey.ScriptId:
            // A string in CDP; some older tools wrote a number.
            if (buf[p] === Ch.Quote) {
              p = this.scanString(p, inside);
              n.scriptId[i] = this.internString();
            } else {
              p = this.scanScalar(p, i, 'callFrame.scriptId');
              n.scriptId[i] = n.intern(String(this.num));
            }
            break;
          case FrameKey.LineNumber:
            p = this.scanInt(p, i, 'callFrame.lineNumber');
            n.lineNumber[i] = this.num;
            break;
          case FrameKey.ColumnNumber:
            p = this.scanInt(p, i, 'callFrame.columnNumber');
            n.columnNumber[i] = this.num;
            break;
          default:
            p = this.skipValue(p); // e.g. codeType
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === Ch.Comma) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === Ch.RBrace) break;
        throw this.unexpected(p, inside);
      }
    }
    n.finishNode(i); // absent strings become '' (CDP requires them; tolerate files that lack them)
    return p + 1;
  }

  /**
   * positionTicks: V8 always writes `{"line":N,"ticks":M}`, so that exact spelling is matched byte by
   * byte; anything else (whitespace, other key order, extra keys such as js-debug's locationIds) takes
   * the generic path for that entry.
   */
  private scanPositionTicks(p: number, i: number): number {
    const buf = this.buf;
    if (buf[p] !== Ch.LBracket) throw this.wrongType(p, `nodes[${i}].positionTicks`, 'an array');
    const inside = 'inside a "positionTicks" array';
    p = this.skipWs(p + 1);
    if (buf[p] === Ch.RBracket) return p + 1;
    for (;;) {
      const fast = this.fastTick(p);
      p = fast >= 0 ? fast : this.scanTickEntry(p, i);
      p = this.skipWs(p);
      const c = buf[p];
      if (c === Ch.Comma) {
        p = this.skipWs(p + 1);
        continue;
      }
      if (c === Ch.RBracket) return p + 1;
      throw this.unexpected(p, inside);
    }
  }

  /** `{"line":N,"ticks":M}` exactly, with N and M of 1-9 digits: pushes it and returns the end; else -1. */
  private fastTick(p: number): number {
    const buf = this.buf;
    if (!this.bytesAt(p, TICK_LINE_PREFIX)) return -1;
    let q = p + TICK_LINE_PREFIX.length;
    const lineStart = q;
    let line = 0;
    let c = buf[q];
    while (c >= Ch.D0 && c <= Ch.D9) {
      line = line * 10 + (c - Ch.D0);
      c = buf[++q];
    }
    if (q === lineStart || q - lineStart > 9 || (buf[lineStart] === Ch.D0 && q - lineStart > 1)) return -1;
    if (!this.bytesAt(q, TICK_TICKS_INFIX)) return -1;
    q += TICK_TICKS_INFIX.length;
    const ticksStart = q;
    let ticks = 0;
    c = buf[q];
    while (c >= Ch.D0 && c <= Ch.D9) {
      ticks = ticks * 10 + (c - Ch.D0);
      c = buf[++q];
    }
    if (q === ticksStart || q - ticksStart > 9 || (buf[ticksStart] === Ch.D0 && q - ticksStart > 1) || c !== Ch.RBrace) return -1;
    this.nodes.tickLine.push(line);
    this.nodes.tickCount.push(ticks);
    return q + 1;
  }

  /** One positionTicks entry in any valid spelling. */
  private scanTickEntry(p: number, i: number): number {
    const buf = this.buf;
    if (buf[p] !== Ch.LBrace) throw this.wrongType(p, `an entry of nodes[${i}].positionTicks`, '{"line", "ticks"}');
    const inside = 'inside a position tick object';
    let line = -1;
    let ticks = -1;
    p = this.skipWs(p + 1);
    if (buf[p] !== Ch.RBrace) {
      for (;;) {
        if (buf[p] !== Ch.Quote) throw this.unexpected(p, inside);
        p = this.scanString(p, inside);
        const key = this.matchKey(TICK_KEYS);
        p = this.expectColon(p, inside);
        if (key === TickKey.Line) {
          p = this.scanInt(p, i, 'positionTicks[].line');
          line = this.num;
        } else if (key === TickKey.Ticks) {
          p = this.scanInt(p, i, 'positionTicks[].ticks');
          ticks = this.num;
        } else {
          p = this.skipValue(p); // e.g. js-debug's startLocationId/endLocationId
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === Ch.Comma) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === Ch.RBrace) break;
        throw this.unexpected(p, inside);
      }
    }
    if (line < 0 || ticks < 0) throw this.schema(`an entry of nodes[${i}].positionTicks lacks "line" or "ticks"`);
    this.nodes.tickLine.push(line);
    this.nodes.tickCount.push(ticks);
    return p + 1;
  }

  /** A node's children ids; plain non-negative integers take a fast path. */
  private scanChildren(p: number, i: number): number {
    const buf = this.buf;
    const out = this.nodes.childIds;
    if (buf[p] !== Ch.LBracket) throw this.wrongType(p, `nodes[${i}].children`, 'an array of ids');
    p = this.skipWs(p + 1);
    if (buf[p] === Ch.RBracket) return p + 1;
    for (;;) {
      const start = p;
      let v = 0;
      let c = buf[p];
      while (c >= Ch.D0 && c <= Ch.D9) {
        v = v * 10 + (c - Ch.D0);
        c = buf[++p];
      }
      const digits = p - start;
      if (digits > 0 && digits <= 9 && (buf[start] !== Ch.D0 || digits === 1) && (c === Ch.Comma || c === Ch.RBracket)) {
        out.push(v);
      } else {
        p = this.scanInt(start, i, 'children[]');
        out.push(this.num);
        p = this.skipWs(p);
        c = buf[p];
      }
      if (c === Ch.Comma) {
        p = this.skipWs(p + 1);
        continue;
      }
      if (c === Ch.RBracket) return p + 1;
      throw this.unexpected(p, 'inside a "children" array');
    }
  }

  private bytesAt(p: number, bytes: Uint8Array): boolean {
    const buf = this.buf;
    for (let k = 0; k < bytes.length; k++) if (buf[p + k] !== bytes[k]) return false;
    return true;
  }

  // ---- the big number arrays -----------------------------------------------------------------------

  /**
   * `samples` and `timeDeltas` are most of the file. Integers that fit int32 (all of them in practice)
   * go straight into an Int32Array; any other number switches the array to Float64Array (timeDeltas
   * only; samples are node ids and must be integers). The array is pre-sized from a probe of its first
   * 64 KB so it rarely grows. The common case runs in intRun, a small loop V8 optimizes early and
   * reuses for the second array; this function handles everything else one element at a time.
   */
  private scanNumberArray(p: number, name: string, intOnly: boolean): number {
    const buf = this.buf;
    const inside = `inside the "${name}" array`;
    if (buf[p] !== Ch.LBracket) throw this.wrongType(p, `"${name}"`, 'an array of numbers');
    p = this.skipWs(p + 1);
    // samples and timeDeltas must be equally long: once one is read, the other's size is known.
    let cap = this.knownArrayLength >= 0 ? this.knownArrayLength + 1 : this.estimateArrayLength(p);
    let ints = new Int32Array(cap);
    let floats: Float64Array | null = null;
    let n = 0;
    if (buf[p] !== Ch.RBracket) {
      for (;;) {
        if (floats === null) {
          // In bounded runs, small at first: V8 then sees intRun return (and its result stores)
          // before optimizing it, instead of deoptimizing at the first return from optimized code.
          p = this.intRun(p, ints, n, Math.min(cap, n + (n < 4096 ? 256 : 1 << 16)));
          n = this.runCount;
          if (this.runEnded) break;
          if (n < cap && this.runFull) continue;
        }
        if (n === cap) {
          cap = cap + (cap >> 2) + 1024;
          if (floats === null) {
            const grown = new Int32Array(cap);
            grown.set(ints);
            ints = grown;
          } else {
            const grown = new Float64Array(cap);
            grown.set(floats);
            floats = grown;
          }
          continue;
        }
        // One element the fast loop did not take: whitespace, a fraction, an exponent, many digits…
        p = this.skipWs(p);
        const c0 = buf[p];
        if (c0 !== Ch.Minus && (c0 < Ch.D0 || c0 > Ch.D9)) throw this.unexpected(p, inside);
        p = this.scanNumber(p, inside);
        const v = this.num;
        if (floats !== null) {
          floats[n++] = v;
        } else if ((v | 0) === v) {
          ints[n++] = v;
        } else if (intOnly) {
          throw this.schema(`"${name}"[${n}] is ${v}, expected an integer node id`);
        } else {
          floats = new Float64Array(cap);
          for (let k = 0; k < n; k++) floats[k] = ints[k];
          ints = new Int32Array(0);
          floats[n++] = v;
        }
        p = this.skipWs(p);
        const c = buf[p];
        if (c === Ch.Comma) {
          p = this.skipWs(p + 1);
          continue;
        }
        if (c === Ch.RBracket) break;
        throw this.unexpected(p, inside);
      }
    }
    this.arrIsFloat = floats !== null;
    if (floats === null) this.arrInts = ints.subarray(0, n);
    else this.arrFloats = floats.subarray(0, n);
    this.knownArrayLength = n;
    return p + 1;
  }

  /**
   * The hot loop: stores compact integers of up to 9 digits followed by `,` into out[n..limit) until
   * that is full (runFull) or an element is anything else; then returns the position of that element
   * (or of the closing `]` after the last one, with runEnded set). int32 arithmetic keeps V8 on machine
   * integers.
   */
  private intRun(p: number, out: Int32Array, n: number, limit: number): number {
    const buf = this.buf;
    let ended = false;
    // Every comparison below runs on every element, on purpose: V8 deoptimizes optimized code when it
    // reaches a comparison that never ran before (e.g. the `]` test at the end of the first array),
    // and would then warm up all over again for the second array.
    while (n < limit) {
      const start = p;
      let c = buf[p];
      const neg = c === Ch.Minus ? 1 : 0;
      p += neg;
      c = buf[p];
      const first = c;
      let v = 0;
      while (c >= Ch.D0 && c <= Ch.D9) {
        v = (v * 10 + (c - Ch.D0)) | 0;
        c = buf[++p];
      }
      const digits = p - start - neg;
      // 1-9 digits (so int32 math was exact), no leading zero, then `,` or `]`.
      const simple = digits - 1 < 9 && (digits === 1 || first !== Ch.D0) && digits > 0;
      const comma = c === Ch.Comma;
      ended = c === Ch.RBracket;
      if (!simple || !(comma || ended)) {
        p = start; // e.g. "1.5", "1e3", "01", "1 ," — the generic path decides
        ended = false;
        break;
      }
      out[n++] = neg === 0 ? v : -v;
      if (ended) break;
      p++;
    }
    this.runEnded = ended;
    this.runFull = n === limit && !ended;
    this.runCount = n;
    return p;
  }

  /**
   * Element count of the number array starting at p: exact if it is short, else an estimate from the
   * comma density of its first 16 KB (+3%; growth covers a short estimate).
   */
  private estimateArrayLength(p: number): number {
    const buf = this.buf;
    const close = buf.indexOf(Ch.RBracket, p); // a number array holds no ']' before its end
    const end = close < 0 || close > this.len ? this.len : close;
    const probeEnd = Math.min(end, p + 16384);
    let commas = 0;
    for (let i = p; i < probeEnd; i++) if (buf[i] === Ch.Comma) commas++;
    if (probeEnd === end) return commas + 1;
    const bytesPerElement = (probeEnd - p) / (commas + 1);
    return Math.ceil(((end - p) / bytesPerElement) * 1.03) + 1024;
  }

  // ---- scalars ------------------------------------------------------------------------------------

  /** A number that must be an int32 (ids, counts, line numbers), in field `field` of node `node`. */
  private scanInt(p: number, node: number, field: string): number {
    p = this.scanScalar(p, node, field);
    const v = this.num;
    if (!Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) throw this.schema(`${fieldLabel(node, field)} is ${v}, expected an integer`);
    return p;
  }

  /**
   * A JSON number where the schema wants one; anything else is a schema error naming the field.
   * The label is built only on error: this runs several times per node.
   */
  private scanScalar(p: number, node: number, field: string): number {
    const c = this.buf[p];
    if (c === Ch.Minus || (c >= Ch.D0 && c <= Ch.D9)) return this.scanNumber(p, 'in a number');
    const kind = this.describeValue(p);
    if (kind === null) throw this.unexpected(p, `before the value of ${fieldLabel(node, field)}`);
    throw this.schema(`${fieldLabel(node, field)} is ${kind}, expected a number`);
  }

  /** Validates the JSON number grammar at p and leaves its value in this.num. */
  private scanNumber(p: number, inside: string): number {
    const buf = this.buf;
    const start = p;
    let c = buf[p];
    if (c === Ch.Minus) c = buf[++p];
    if (c === Ch.D0) {
      c = buf[++p];
    } else if (c >= Ch.D1 && c <= Ch.D9) {
      do c = buf[++p];
      while (c >= Ch.D0 && c <= Ch.D9);
    } else {
      throw this.unexpected(p, inside);
    }
    let simple = true;
    if (c === Ch.Dot) {
      simple = false;
      c = buf[++p];
      if (c < Ch.D0 || c > Ch.D9) throw this.unexpected(p, inside);
      do c = buf[++p];
      while (c >= Ch.D0 && c <= Ch.D9);
    }
    if (c === Ch.LowerE || c === Ch.UpperE) {
      simple = false;
      c = buf[++p];
      if (c === Ch.Plus || c === Ch.Minus) c = buf[++p];
      if (c < Ch.D0 || c > Ch.D9) throw this.unexpected(p, inside);
      do c = buf[++p];
      while (c >= Ch.D0 && c <= Ch.D9);
    }
    if (simple && p - start <= 15) {
      let v = 0;
      const neg = buf[start] === Ch.Minus;
      for (let k = neg ? start + 1 : start; k < p; k++) v = v * 10 + (buf[k] - Ch.D0);
      this.num = neg ? -v : v;
    } else {
      // Number() rounds exactly like JSON.parse for every valid JSON number.
      this.num = Number(buf.toString('latin1', start, p));
    }
    return p;
  }

  // ---- strings ------------------------------------------------------------------------------------

  /** Scans the string at p (its opening quote); returns the position after the closing quote. */
  private scanString(p: number, inside: string): number {
    const buf = this.buf;
    let q = p + 1;
    let escaped = false;
    let nonAscii = false;
    for (;;) {
      const c = buf[q];
      if (c === Ch.Quote) break;
      if (c === Ch.Backslash) {
        escaped = true;
        const e = buf[q + 1];
        if (e === Ch.LowerU) {
          for (let k = 2; k < 6; k++) {
            const h = buf[q + k];
            const hex = (h >= Ch.D0 && h <= Ch.D9) || (h >= Ch.UpperA && h <= Ch.UpperF) || (h >= Ch.LowerA && h <= Ch.LowerF);
            if (!hex) throw this.unexpected(q + k, 'in a \\u escape inside a string');
          }
          q += 6;
        } else if (
          e === Ch.Quote || e === Ch.Backslash || e === Ch.Slash || e === Ch.LowerB ||
          e === Ch.LowerF || e === Ch.LowerN || e === Ch.LowerR || e === Ch.LowerT
        ) {
          q += 2;
        } else {
          throw this.unexpected(q + 1, 'after a backslash inside a string');
        }
        continue;
      }
      if (c < Ch.Space) {
        if (q >= this.len) throw truncated(this.source, this.len, `inside a string ${inside}`);
        throw badJson(this.source, `unescaped control character ${this.describeByte(q)} in a string`, q, this.position(q));
      }
      if (c >= 0x80) nonAscii = true;
      q++;
    }
    this.strStart = p + 1;
    this.strEnd = q;
    this.strEscaped = escaped;
    this.strNonAscii = nonAscii;
    return q + 1;
  }

  /** The last scanned string as a JS string. */
  private stringValue(): string {
    const s = this.strStart;
    const e = this.strEnd;
    // Escapes are rare in profiles: let JSON.parse decode exactly that one string literal.
    if (this.strEscaped) return JSON.parse(this.buf.toString('utf8', s - 1, e + 1)) as string;
    return this.strNonAscii ? this.buf.toString('utf8', s, e) : this.buf.toString('latin1', s, e);
  }

  /**
   * Intern the last scanned string. A direct-mapped cache keyed by a few of its bytes remembers where
   * an equal string was seen before, so the ~3 strings per node of a big profile (mostly the same urls
   * and names over and over) rarely allocate a JS string or hash one.
   */
  private internString(): number {
    if (this.strEscaped) return this.nodes.intern(this.stringValue());
    const buf = this.buf;
    const s = this.strStart;
    const len = this.strEnd - s;
    let h = len;
    if (len > 0) {
      const e = s + len - 1;
      h = Math.imul(h ^ buf[s], 0x01000193) ^ buf[s + (len >> 1)];
      h = Math.imul(h ^ buf[e], 0x01000193) ^ buf[e - (len > 1 ? 1 : 0)];
      h = Math.imul(h ^ buf[e - (len > 4 ? 4 : 0)], 0x01000193) ^ buf[e - (len > 6 ? 6 : 0)];
      h ^= h >>> 13;
    }
    const slot = h & (INTERN_CACHE_SIZE - 1);
    const at = this.cacheStart[slot];
    if (at >= 0 && this.cacheLength[slot] === len) {
      let k = 0;
      while (k < len && buf[at + k] === buf[s + k]) k++;
      if (k === len) return this.cacheId[slot];
    }
    const id = this.nodes.intern(this.stringValue());
    this.cacheStart[slot] = s;
    this.cacheLength[slot] = len;
    this.cacheId[slot] = id;
    return id;
  }

  /**
   * The member name at p, if it is spelled exactly `"key":` for table[next] or table[next + 1]: V8 writes
   * a node's keys in table order without whitespace (a missing key, e.g. a leaf's children, skips one),
   * so this byte comparison nearly always replaces scanString + matchKey + expectColon. Returns the key's
   * index and leaves the position after the colon in memberEnd; -1 means "take the generic path", which
   * reads any other spelling (escapes, whitespace, other order) to the same result.
   */
  private memberAt(p: number, table: readonly Key[], next: number): number {
    for (let k = next; k < next + 2 && k < table.length; k++) {
      const member = table[k].member;
      if (this.bytesAt(p, member)) {
        this.memberEnd = p + member.length;
        return k;
      }
    }
    return -1;
  }

  /** Index of the last scanned string in `table`, or -1. */
  private matchKey(table: readonly Key[]): number {
    if (this.strEscaped) {
      const text = this.stringValue();
      return table.findIndex((k) => k.text === text);
    }
    const buf = this.buf;
    const s = this.strStart;
    const n = this.strEnd - s;
    outer: for (let i = 0; i < table.length; i++) {
      const bytes = table[i].bytes;
      if (bytes.length !== n) continue;
      for (let j = 0; j < n; j++) if (buf[s + j] !== bytes[j]) continue outer;
      return i;
    }
    return -1;
  }

  // ---- generic skipping ---------------------------------------------------------------------------

  /**
   * Skips any JSON value with full validation. Iterative (an explicit stack of open containers) so that
   * deeply nested input cannot overflow the call stack.
   */
  private skipValue(p: number): number {
    const buf = this.buf;
    let stack = this.skipStack;
    let depth = 0;
    const OBJECT = 1;
    const ARRAY = 2;
    const insideOf = () => (depth === 0 ? 'inside a value' : stack[depth - 1] === OBJECT ? 'inside an object' : 'inside an array');
    for (;;) {
      // Expecting a value at p.
      p = this.skipWs(p);
      const c = buf[p];
      let container = 0;
      if (c === Ch.LBrace) {
        p = this.skipWs(p + 1);
        if (buf[p] === Ch.RBrace) p++;
        else container = OBJECT;
      } else if (c === Ch.LBracket) {
        p = this.skipWs(p + 1);
        if (buf[p] === Ch.RBracket) p++;
        else container = ARRAY;
      } else if (c === Ch.Quote) {
        p = this.scanString(p, insideOf());
      } else if (c === Ch.Minus || (c >= Ch.D0 && c <= Ch.D9)) {
        p = this.scanNumber(p, insideOf());
      } else if (c === Ch.LowerT || c === Ch.LowerF || c === Ch.LowerN) {
        p = this.scanLiteral(p, insideOf());
      } else {
        throw this.unexpected(p, insideOf());
      }
      if (container !== 0) {
        if (depth === stack.length) {
          const grown = new Uint8Array(stack.length * 2);
          grown.set(stack);
          this.skipStack = stack = grown;
        }
        stack[depth++] = container;
        if (container === OBJECT) p = this.scanMemberName(p, insideOf());
        continue;
      }
      // After a value: close finished containers, or move to the next element/member.
      for (;;) {
        if (depth === 0) return p;
        p = this.skipWs(p);
        const d = buf[p];
        const top = stack[depth - 1];
        if (d === Ch.Comma) {
          p = this.skipWs(p + 1);
          if (top === OBJECT) p = this.scanMemberName(p, insideOf());
          break;
        }
        if ((top === OBJECT && d === Ch.RBrace) || (top === ARRAY && d === Ch.RBracket)) {
          p++;
          depth--;
          continue;
        }
        throw this.unexpected(p, insideOf());
      }
    }
  }

  /** `"name":` at p (whitespace already skipped); returns the position of the value. */
  private scanMemberName(p: number, inside: string): number {
    if (this.buf[p] !== Ch.Quote) throw this.unexpected(p, inside);
    p = this.scanString(p, inside);
    return this.expectColon(p, inside);
  }

  private scanLiteral(p: number, inside: string): number {
    const buf = this.buf;
    const word = buf[p] === Ch.LowerT ? 'true' : buf[p] === Ch.LowerF ? 'false' : 'null';
    for (let k = 1; k < word.length; k++) {
      if (buf[p + k] !== word.charCodeAt(k)) throw this.unexpected(p + k, inside);
    }
    return p + word.length;
  }

  /** Skips whitespace, a colon and whitespace; returns the position of the member's value. */
  private expectColon(p: number, inside: string): number {
    p = this.skipWs(p);
    if (this.buf[p] !== Ch.Colon) throw this.unexpected(p, inside);
    return this.skipWs(p + 1);
  }

  private skipWs(p: number): number {
    const buf = this.buf;
    let c = buf[p];
    while (c === Ch.Space || c === Ch.Lf || c === Ch.Cr || c === Ch.Tab) c = buf[++p];
    return p;
  }

  // ---- errors -------------------------------------------------------------------------------------

  /** A byte the grammar does not allow at p: truncation if p is the end of the data. */
  private unexpected(p: number, inside: string): HotpathError {
    if (p >= this.len) return truncated(this.source, this.len, inside);
    return badJson(this.source, `unexpected ${this.describeByte(p)} ${inside}`, p, this.position(p));
  }

  /** A value of the wrong JSON type where the schema wants `expected` (or no value at all: a syntax error). */
  private wrongType(p: number, what: string, expected: string): HotpathError {
    const kind = this.describeValue(p);
    if (kind === null) return this.unexpected(p, `before the value of ${what}`);
    return this.schema(`${what} is ${kind}, expected ${expected}`);
  }

  private schema(what: string): HotpathError {
    return notAProfile(this.source, what);
  }

  /** The JSON type starting at p, for schema messages; null if no value starts there. */
  private describeValue(p: number): string | null {
    switch (this.buf[p]) {
      case Ch.LBrace: return 'an object';
      case Ch.LBracket: return 'an array';
      case Ch.Quote: return 'a string';
      case Ch.LowerT:
      case Ch.LowerF: return 'a boolean';
      case Ch.LowerN: return 'null';
      default: {
        const c = this.buf[p];
        return c === Ch.Minus || (c >= Ch.D0 && c <= Ch.D9) ? 'a number' : null;
      }
    }
  }

  private describeByte(p: number): string {
    const c = this.buf[p];
    if (c > 0x20 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
    return `byte 0x${c.toString(16).padStart(2, '0').toUpperCase()}`;
  }

  /** "line L, column C" of byte p (1-based), for error messages only. */
  private position(p: number): string {
    const buf = this.buf;
    let line = 1;
    let lineStart = 0;
    for (let i = buf.indexOf(Ch.Lf, 0); i >= 0 && i < p; i = buf.indexOf(Ch.Lf, i + 1)) {
      line++;
      lineStart = i + 1;
    }
    return `line ${line}, column ${p - lineStart + 1}`;
  }
}
