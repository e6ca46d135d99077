/** The decoded payload with the lookups every view needs. */
import { categoryName, type CategoryName } from '../shared/flame/categories';
import type { FlamePayload, FlameTimeline } from '../shared/flame/payload';
import { type FrameTree, treeFromPreorder } from '../shared/flame/tree';

export class FlameData {
  readonly base: FrameTree;
  readonly timeline: FlameTimeline | undefined;
  private searchTexts: string[] | undefined;

  constructor(readonly payload: FlamePayload) {
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
  /** What search matches against: the function's name and location. */
  searchText(func: number): string {
    if (!this.searchTexts) {
      const n = this.payload.functions.count;
      this.searchTexts = new Array<string>(n);
      for (let f = 0; f < n; f++) this.searchTexts[f] = `${this.name(f)} ${this.location(f)}`;
    }
    return this.searchTexts[func];
  }
  get durationUs(): number {
    return this.payload.meta.durationUs;
  }
}
