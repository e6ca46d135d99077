/** The decoded payload with the lookups every view needs. */
import { categoryName, CategoryCode, type CategoryName } from '../shared/flame/categories';
import type { FlamePayload, FlameTimeline, FunctionTable } from '../shared/flame/payload';
import { type FrameTree, treeFromPreorder } from '../shared/flame/tree';
import { formatBytes, formatUs } from '../shared/text/numbers';

/**
 * The payload's function table with one more function per npm package (named after the package), so
 * the "by package" fold can draw a package as one frame with every view's usual lookups.
 * `packageFunc[f]` is the package function of function f, or -1.
 */
function withPackageFunctions(payload: FlamePayload): { payload: FlamePayload; packageFunc: Int32Array } {
  const fns = payload.functions;
  const n = fns.count;
  const packageFunc = new Int32Array(n).fill(-1);
  const packages = new Map<number, number>(); // pkg string index → new function index
  for (let f = 0; f < n; f++) {
    const pkg = fns.pkg[f];
    if (pkg < 0 || fns.category[f] !== CategoryCode.dependency) continue;
    let g = packages.get(pkg);
    if (g === undefined) packages.set(pkg, (g = n + packages.size));
    packageFunc[f] = g;
  }
  if (packages.size === 0) return { payload, packageFunc };
  const total = n + packages.size;
  const grow = <T extends Int32Array | Uint8Array>(a: T, fill: number): T => {
    const b = new (a.constructor as { new (length: number): T })(total);
    b.set(a);
    b.fill(fill as never, n);
    return b;
  };
  const table: FunctionTable = {
    count: total, name: grow(fns.name, -1), file: grow(fns.file, -1), line: grow(fns.line, 0), column: grow(fns.column, 0),
    category: grow(fns.category, CategoryCode.dependency), pkg: grow(fns.pkg, -1), mapped: grow(fns.mapped, 0),
    ...(fns.extras ? { extras: Object.fromEntries(Object.entries(fns.extras).map(([k, v]) => [k, v.length === n ? grow(v, 0) : v])) } : {}),
    ...(fns.inlinedOf ? { inlinedOf: grow(fns.inlinedOf, -1) } : {}),
  };
  for (const [pkg, g] of packages) {
    table.name[g] = pkg;
    table.pkg[g] = pkg;
  }
  return { payload: { ...payload, functions: table }, packageFunc };
}

export class FlameData {
  readonly base: FrameTree;
  readonly timeline: FlameTimeline | undefined;
  readonly payload: FlamePayload;
  /** Per function of the original table: its package's function (see withPackageFunctions), or -1. */
  readonly packageFunc: Int32Array;
  private searchTexts: string[] | undefined;
  private anyInlined: boolean | undefined;
  private intoOf: Int32Array | undefined;

  constructor(original: FlamePayload) {
    ({ payload: this.payload, packageFunc: this.packageFunc } = withPackageFunctions(original));
    const payload = this.payload;
    const { frames, diff } = payload;
    const { tree, newIndex } = treeFromPreorder(frames.parent, frames.func, frames.selfUs, diff?.beforeSelfUs);
    this.base = tree;
    let timeline = payload.timeline;
    if (timeline && newIndex) timeline = { ...timeline, frame: timeline.frame.map((f) => newIndex[f]) };
    this.timeline = timeline;
  }

  get isDiff(): boolean {
    return this.payload.diff !== undefined;
  }

  private str(i: number): string {
    return i >= 0 ? this.payload.strings[i] ?? '' : '';
  }
  name(func: number): string {
    return this.str(this.payload.functions.name[func]) || '(anonymous)';
  }
  file(func: number): string {
    return this.str(this.payload.functions.file[func]);
  }
  line(func: number): number {
    return this.payload.functions.line[func];
  }
  column(func: number): number {
    return this.payload.functions.column[func];
  }
  category(func: number): CategoryName {
    return categoryName(this.payload.functions.category[func]);
  }
  pkg(func: number): string {
    return this.str(this.payload.functions.pkg[func]);
  }
  mapped(func: number): boolean {
    return this.payload.functions.mapped[func] === 1;
  }
  /** `file:line` for people; '' when the function has no file (natives, GC, …). */
  location(func: number): string {
    const file = this.file(func);
    if (!file) return '';
    const line = this.line(func);
    return line > 0 ? `${file}:${line}` : file;
  }
  /**
   * For an inlined frame's function (a twin, see core/flame/inlined.ts): the function it is a frame of;
   * else the function itself. Views that count or select functions count a twin as that function.
   */
  canonical(func: number): number {
    const of = this.payload.functions.inlinedOf;
    return of && func < of.length && of[func] >= 0 ? of[func] : func;
  }
  /** 0: not an inlined frame; 1: V8 reported the inlining; 2: inferred from the source. */
  inlinedHow(func: number): number {
    const how = this.payload.functions.extras?.inlined;
    return this.payload.functions.inlinedOf && how && func < how.length ? how[func] : 0;
  }
  /**
   * The function an inlined frame's code ran inside (its parent in the unfiltered tree: every frame of a
   * twin hangs from frames of one function), or -1. Filters and folds may give it another parent on screen.
   */
  inlinedInto(func: number): number {
    if (!this.intoOf) {
      this.intoOf = new Int32Array(this.payload.functions.count).fill(-1);
      if (this.hasInlined) for (let i = 1; i < this.base.count; i++) if (this.inlinedHow(this.base.func[i]) > 0) this.intoOf[this.base.func[i]] = this.base.func[this.base.parent[i]];
    }
    return func < this.intoOf.length ? this.intoOf[func] : -1;
  }
  /** Whether the payload draws any inlined frames. */
  get hasInlined(): boolean {
    const of = this.payload.functions.inlinedOf;
    this.anyInlined ??= of !== undefined && of.some((g) => g >= 0);
    return this.anyInlined;
  }
  /** What search matches against: the function's name and location. */
  searchText(func: number): string {
    if (!this.searchTexts) {
      const n = this.payload.functions.count;
      this.searchTexts = new Array<string>(n);
      for (let f = 0; f < n; f++) this.searchTexts[f] = `${this.name(f)} ${this.location(f)}`;
    }
    return this.searchTexts[func];
  }
  /** True when the profile has code of at least one npm package (the "by package" fold has something to do). */
  get hasPackages(): boolean {
    return this.payload.functions.count > this.packageFunc.length;
  }
  get durationUs(): number {
    return this.payload.meta.durationUs;
  }
  /** An allocation profile (bytes, or a pprof heap profile's object counts) rather than time. */
  get isBytes(): boolean {
    return this.payload.meta.unit === 'bytes' || this.payload.meta.unit === 'objects';
  }
  /** Object counts (a pprof heap profile's `*_objects`) rather than time or bytes. */
  get isObjects(): boolean {
    return this.payload.meta.unit === 'objects';
  }
  /** A width in the payload's unit, for people: `12.3 ms`, `1.4 MB` or `1,204 objects`. */
  amount(value: number): string {
    if (this.isObjects) return `${Math.round(value).toLocaleString('en-US')} objects`;
    return this.payload.meta.unit === 'bytes' ? formatBytes(value) : formatUs(value);
  }
  /** `1.4 KB/request` when the payload knows its request count; '' otherwise. */
  perRequest(value: number): string {
    const n = this.payload.meta.requests;
    if (!n || n <= 0) return '';
    return `${this.amount(value / n)}/request`;
  }
}
