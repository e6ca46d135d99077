/**
 * One canvas of boxes: HiDPI-aware, virtual vertical scrolling, boxes written as pixels a row line at a
 * time (paintBoxes; rectangles batched by colour where that cannot be done), labels
 * truncated with an ellipsis from cached text widths, and hover/selection outlines as two small
 * positioned elements above it, so a hover never redraws the boxes. Knows nothing about profiles: a box
 * is a frame id, a row and an x-range in domain units (µs); colours come from a Painter, labels from a
 * callback.
 *
 * Why elements and not an overlay canvas (as before): a changed canvas is uploaded and composited whole
 * on the next frame — a pane-sized overlay at 1600×900 css pixels on a 2× display is 3200×1800 pixels,
 * 9–12 ms of the browser's CPU per hover without a GPU (Chromium's trace in the browser bench,
 * `npm run bench -- flame`); two outline elements cost it the rectangles they cover.
 */
import type { Painter } from './colors';
import type { Theme } from './theme';

export interface Boxes {
  count: number;
  frame: Int32Array;
  row: Int32Array;
  x0: Float64Array;
  x1: Float64Array;
  /** Rows used (max row + 1). */
  rows: number;
}

export class BoxBuilder {
  count = 0;
  rows = 0;
  frame = new Int32Array(256);
  row = new Int32Array(256);
  x0 = new Float64Array(256);
  x1 = new Float64Array(256);
  push(frame: number, row: number, x0: number, x1: number): void {
    if (this.count === this.frame.length) {
      const n = this.count * 2;
      const grow = <T extends Int32Array | Float64Array>(a: T, b: T): T => (b.set(a), b);
      this.frame = grow(this.frame, new Int32Array(n));
      this.row = grow(this.row, new Int32Array(n));
      this.x0 = grow(this.x0, new Float64Array(n));
      this.x1 = grow(this.x1, new Float64Array(n));
    }
    const i = this.count++;
    this.frame[i] = frame;
    this.row[i] = row;
    this.x0[i] = x0;
    this.x1[i] = x1;
    if (row + 1 > this.rows) this.rows = row + 1;
  }
  build(): Boxes {
    return { count: this.count, frame: this.frame, row: this.row, x0: this.x0, x1: this.x1, rows: this.rows };
  }
}

export interface Content {
  boxes: Boxes;
  t0: number;
  t1: number;
  /** 'up': row 0 at the bottom (flamegraph); 'down': row 0 at the top (icicle, flame chart). */
  orientation: 'up' | 'down';
  painter: Painter;
  label(frame: number): string;
  /** Dimmed frames (search non-matches) are drawn in a faded neutral colour; null = none dimmed. */
  dimmed: ((frame: number) => boolean) | null;
  /** Frames that get the corner marker (functions V8 deoptimized); null = none. */
  marked?: ((frame: number) => boolean) | null;
  /** Frames drawn with the inlined bar on their left edge (code V8 inlined into the parent frame); null = none. */
  inlined?: ((frame: number) => boolean) | null;
}

export const ROW_HEIGHT = 18;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const LABEL_MIN_PX = 22;
/** The marker: a right triangle of this many css pixels in a box's top-right corner. */
export const MARKER_PX = 7;
/** Boxes narrower than this get no marker (it would cover them). */
const MARKER_MIN_BOX_PX = 10;
/** The inlined bar: this many css pixels wide on a box's left edge, the full row high. */
export const INLINED_BAR_PX = 3;
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export class FlameCanvas {
  readonly canvas: HTMLCanvasElement;
  /** The hovered box's outline and the selected box's (hidden when none). */
  private readonly hoverOutline: HTMLElement;
  private readonly selectedOutline: HTMLElement;
  /** What each outline shows now ('' hidden), so an unchanged outline is not written again. */
  private readonly placed = new Map<HTMLElement, string>();
  private readonly ctx: CanvasRenderingContext2D;
  private content: Content | null = null;
  private theme: Theme;
  private widthCss = 0;
  private heightCss = 0;
  /** The pane's size when the canvas was last matched to it (CSS px, fractional). */
  private paneWidth = -1;
  private paneHeight = -1;
  private dpr = 1;
  /** Pixels scrolled away from row 0's edge. */
  private scroll = 0;
  // The last draw's visible boxes, for hit testing: box index and css-pixel rectangle.
  private drawnCount = 0;
  private drawn = new Int32Array(0);
  private drawnX = new Float32Array(0);
  private drawnW = new Float32Array(0);
  private drawnY = new Float32Array(0);
  /** Per drawn box: 1 when it carries the marker. */
  private marked = new Uint8Array(0);
  /** Per drawn box: 1 when it carries the inlined bar. */
  private inlinedBox = new Uint8Array(0);
  /** paintBoxes' scratch: one device line of pixels per visible row, the canvas they are put on, and per device line where a row starts its end and its line. */
  private rowLines: ImageData | null = null;
  private linesCanvas: HTMLCanvasElement | null = null;
  private rowEnd: Int32Array | null = null;
  private rowLine: Int32Array | null = null;
  /** CSS colour → its pixel value (RGBA as one little-endian 32-bit word), as the canvas fills it. */
  private readonly colorWords = new Map<string, number>();
  private readonly textWidths = new Map<string, number>();
  private fontKey = '';
  private ellipsisWidth = 0;
  /** Advance of one character when the font is monospaced (0 otherwise): ASCII labels skip measureText. */
  private monoWidth = 0;
  lastRenderMs = 0;

  constructor(readonly pane: HTMLElement, theme: Theme, label: string) {
    this.theme = theme;
    this.canvas = document.createElement('canvas');
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute('role', 'application');
    this.canvas.setAttribute('aria-roledescription', 'flamegraph');
    this.canvas.setAttribute('aria-label', `${label}. Arrow keys move between frames, Enter zooms, Escape zooms out, O opens the source.`);
    const outline = (kind: string) => {
      const el = document.createElement('div');
      el.className = `hp-outline ${kind}`;
      el.setAttribute('aria-hidden', 'true');
      el.hidden = true;
      return el;
    };
    this.hoverOutline = outline('hp-outline-hover');
    this.selectedOutline = outline('hp-outline-selected');
    pane.append(this.canvas, this.selectedOutline, this.hoverOutline);
    this.ctx = this.canvas.getContext('2d', { alpha: false })!;
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
    this.fontKey = '';
  }

  setContent(content: Content, keepScroll = false): void {
    this.content = content;
    if (!keepScroll) this.scroll = 0;
    this.clampScroll();
  }

  get contentValue(): Content | null {
    return this.content;
  }

  /**
   * Match the canvas to its pane's size and the device pixel ratio; true when it changed. The canvas's
   * CSS box is set to exactly its backing store's size in device pixels (the pane's size rounded down to
   * whole device pixels): a box of 721.9 px for a backing store of 1444 px makes the compositor resample
   * the whole bitmap on every frame, which was most of a zoom's frame without a GPU (bench/suites/flame.js).
   */
  resize(): boolean {
    const rect = this.pane.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    if (rect.width === this.paneWidth && rect.height === this.paneHeight && dpr === this.dpr) return false;
    this.paneWidth = rect.width;
    this.paneHeight = rect.height;
    this.dpr = dpr;
    const deviceW = Math.max(1, Math.floor(rect.width * dpr + 1e-6));
    const deviceH = Math.max(1, Math.floor(rect.height * dpr + 1e-6));
    this.canvas.width = deviceW;
    this.canvas.height = deviceH;
    this.widthCss = deviceW / dpr;
    this.heightCss = deviceH / dpr;
    this.canvas.style.width = `${this.widthCss}px`;
    this.canvas.style.height = `${this.heightCss}px`;
    this.clampScroll();
    return true;
  }

  /** Whether the pane's size or the pixel ratio differs from the canvas's. */
  sizeChanged(): boolean {
    const rect = this.pane.getBoundingClientRect();
    return rect.width !== this.paneWidth || rect.height !== this.paneHeight || (window.devicePixelRatio || 1) !== this.dpr;
  }

  get width(): number {
    return this.widthCss;
  }

  scrollBy(dy: number): void {
    const c = this.content;
    if (!c) return;
    this.scroll += c.orientation === 'up' ? -dy : dy;
    this.clampScroll();
  }

  private clampScroll(): void {
    const rows = this.content?.boxes.rows ?? 0;
    const max = Math.max(0, rows * ROW_HEIGHT + 4 - this.heightCss);
    this.scroll = Math.min(max, Math.max(0, this.scroll));
  }

  /** Scroll so that `row` is visible. */
  revealRow(row: number): void {
    const top = row * ROW_HEIGHT;
    if (top < this.scroll) this.scroll = top;
    else if (top + ROW_HEIGHT > this.scroll + this.heightCss) this.scroll = top + ROW_HEIGHT - this.heightCss;
    this.clampScroll();
  }

  render(): void {
    const started = performance.now();
    const { ctx, theme } = this;
    const w = this.widthCss;
    const hgt = this.heightCss;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const c = this.content;
    this.drawnCount = 0;
    if (!c || c.t1 <= c.t0 || w === 0) {
      ctx.fillStyle = theme.background;
      ctx.fillRect(0, 0, w, hgt);
      this.lastRenderMs = performance.now() - started;
      return;
    }
    const { boxes, painter } = c;
    const scale = w / (c.t1 - c.t0);
    const fills = painter.fills;
    const dimBucket = fills.length;
    if (this.drawn.length < boxes.count) {
      const n = Math.max(boxes.count, 1024);
      this.drawn = new Int32Array(n);
      this.drawnX = new Float32Array(n);
      this.drawnW = new Float32Array(n);
      this.drawnY = new Float32Array(n);
    }
    // Pass 1: visible boxes at least a pixel wide, with their bucket (counting sort by colour).
    const bucketOf = new Int32Array(boxes.count);
    const perBucket = new Int32Array(dimBucket + 2);
    // Edges on whole device pixels: the browser then fills a box without anti-aliasing its edges, which
    // was most of a zoom's frame on a large profile (Chromium's trace of the browser bench: SkCanvas::drawRect).
    // A row's y and the snapping are written out in the loop, not helpers: the first draws of a view run
    // before V8 has optimised render, and a call per box per helper was most of a first wheel zoom's
    // 21 ms on the bench's 240 MB chart (row → y 3.2 ms, the snap 4.3 ms for ~30,000 boxes). Rows count
    // up from the bottom for 'up' (flamegraph), down from the top otherwise, both shifted by the scroll.
    const dpr = this.dpr;
    const rowTop = c.orientation === 'up' ? this.heightCss - ROW_HEIGHT + this.scroll : -this.scroll;
    const rowStep = c.orientation === 'up' ? -ROW_HEIGHT : ROW_HEIGHT;
    const { x0: bx0, x1: bx1, row: brow } = boxes;
    const t0 = c.t0;
    let n = 0;
    for (let b = 0; b < boxes.count; b++) {
      let x0 = (bx0[b] - t0) * scale;
      let x1 = (bx1[b] - t0) * scale;
      if (x1 <= 0 || x0 >= w) continue;
      if (x0 < 0) x0 = 0;
      if (x1 > w) x1 = w;
      if (x1 - x0 < 1) continue;
      x0 = Math.round(x0 * dpr) / dpr;
      x1 = Math.max(x0 + 1 / dpr, Math.round(x1 * dpr) / dpr);
      const y = Math.round((rowTop + brow[b] * rowStep) * dpr) / dpr;
      if (y + ROW_HEIGHT <= 0 || y >= hgt) continue;
      const f = boxes.frame[b];
      const bucket = c.dimmed && c.dimmed(f) ? dimBucket : painter.bucketOf(f);
      this.drawn[n] = b;
      this.drawnX[n] = x0;
      this.drawnW[n] = x1 - x0;
      this.drawnY[n] = y;
      bucketOf[n] = bucket;
      perBucket[bucket + 1]++;
      n++;
    }
    this.drawnCount = n;
    for (let k = 1; k < perBucket.length; k++) perBucket[k] += perBucket[k - 1];
    const order = new Int32Array(n);
    const fill = perBucket.slice();
    for (let k = 0; k < n; k++) order[fill[bucketOf[k]]++] = k;

    // Pass 2: the background and the boxes, as pixels (paintBoxes), or — when a colour cannot be read
    // back — as rectangles, one fillStyle per bucket; a 1 px gap separates neighbours. Boxes of 2 px or
    // less have no gap, so a run of them side by side in one colour is one rectangle.
    const dimFill = theme.scheme === 'dark' || theme.scheme === 'hc' ? 'hsl(0 0% 22%)' : 'hsl(0 0% 92%)';
    const colorOf = (bucket: number) => (bucket === dimBucket ? dimFill : fills[bucket]);
    let painted = false;
    try {
      painted = LITTLE_ENDIAN && this.paintBoxes(n, order, bucketOf, colorOf);
    } catch {
      // An ImageData the browser would not make (memory): the rectangles below draw the same boxes.
    }
    if (!painted) this.fillBoxes(order, perBucket, dimBucket, colorOf);
    if (theme.boxBorder) {
      ctx.strokeStyle = theme.boxBorder;
      ctx.lineWidth = 1;
      for (let d = 0; d < n; d++) if (this.drawnW[d] >= 3) ctx.strokeRect(this.drawnX[d] + 0.5, this.drawnY[d] + 0.5, this.drawnW[d] - 2, ROW_HEIGHT - 2);
    }

    // Pass 2b: markers, one path per colour: an edge a pixel larger (visible on any fill), then the mark.
    const marked = c.marked;
    let markedAny = false;
    const markedBox = this.marked.length >= n ? this.marked : (this.marked = new Uint8Array(Math.max(n, 1024)));
    if (marked) {
      for (let d = 0; d < n; d++) {
        const m = this.drawnW[d] >= MARKER_MIN_BOX_PX && marked(boxes.frame[this.drawn[d]]) ? 1 : 0;
        markedBox[d] = m;
        if (m) markedAny = true;
      }
    } else {
      markedBox.fill(0, 0, n);
    }
    if (markedAny) {
      for (const [color, size] of [[theme.deoptEdge, MARKER_PX + 1.5], [theme.deopt, MARKER_PX]] as const) {
        ctx.fillStyle = color;
        ctx.beginPath();
        for (let d = 0; d < n; d++) {
          if (!markedBox[d]) continue;
          const right = this.drawnX[d] + this.drawnW[d] - 1; // the 1 px gap between boxes
          const top = this.drawnY[d];
          ctx.moveTo(right - size, top);
          ctx.lineTo(right, top);
          ctx.lineTo(right, top + size);
          ctx.closePath();
        }
        ctx.fill();
      }
    }

    // Pass 2c: the inlined bar, on boxes wide enough to keep their colour readable beside it.
    const inlined = c.inlined;
    let inlinedAny = false;
    const inlinedBox = this.inlinedBox.length >= n ? this.inlinedBox : (this.inlinedBox = new Uint8Array(Math.max(n, 1024)));
    inlinedBox.fill(0, 0, n);
    if (inlined) {
      for (let d = 0; d < n; d++) {
        if (this.drawnW[d] >= MARKER_MIN_BOX_PX && inlined(boxes.frame[this.drawn[d]])) {
          inlinedBox[d] = 1;
          inlinedAny = true;
        }
      }
    }
    if (inlinedAny) {
      for (const [color, width] of [[theme.deoptEdge, INLINED_BAR_PX + 1], [theme.deopt, INLINED_BAR_PX]] as const) {
        ctx.fillStyle = color;
        for (let d = 0; d < n; d++) if (inlinedBox[d]) ctx.fillRect(this.drawnX[d], this.drawnY[d], width, ROW_HEIGHT - 1);
      }
    }

    // Pass 3: labels on boxes wide enough, grouped by text colour.
    this.setFont();
    ctx.textBaseline = 'middle';
    const dimText = theme.scheme === 'dark' || theme.scheme === 'hc' ? '#8a8a8a' : '#8a8a8a';
    let currentStyle = '';
    for (let k = 0; k < n; k++) {
      const d = order[k];
      const bw = this.drawnW[d];
      if (bw < LABEL_MIN_PX) continue;
      const bar = inlinedAny && inlinedBox[d] ? INLINED_BAR_PX + 2 : 0;
      const text = this.fit(c.label(boxes.frame[this.drawn[d]]), bw - 6 - bar - (markedAny && markedBox[d] ? MARKER_PX : 0));
      if (text === '') continue;
      const bucket = bucketOf[d];
      const style = bucket === dimBucket ? dimText : painter.texts[bucket];
      if (style !== currentStyle) {
        ctx.fillStyle = style;
        currentStyle = style;
      }
      ctx.fillText(text, this.drawnX[d] + 3 + bar, this.drawnY[d] + ROW_HEIGHT / 2);
    }
    this.lastRenderMs = performance.now() - started;
  }

  /** Pass 2 with the canvas's own rectangles: the background, then the boxes bucket by bucket. */
  private fillBoxes(order: Int32Array, perBucket: Int32Array, dimBucket: number, colorOf: (bucket: number) => string): void {
    const ctx = this.ctx;
    ctx.fillStyle = this.theme.background;
    ctx.fillRect(0, 0, this.widthCss, this.heightCss);
    for (let bucket = 0; bucket <= dimBucket; bucket++) {
      const from = perBucket[bucket];
      const to = perBucket[bucket + 1];
      if (from === to) continue;
      ctx.fillStyle = colorOf(bucket);
      let runX = 0;
      let runEnd = -1;
      let runY = 0;
      for (let k = from; k < to; k++) {
        const d = order[k];
        const bw = this.drawnW[d];
        const x = this.drawnX[d];
        const y = this.drawnY[d];
        if (bw <= 2 && y === runY && x === runEnd) {
          runEnd = x + bw;
          continue;
        }
        if (runEnd >= 0) ctx.fillRect(runX, runY, runEnd - runX, ROW_HEIGHT - 1);
        runEnd = -1;
        if (bw <= 2) {
          runX = x;
          runY = y;
          runEnd = x + bw;
        } else {
          ctx.fillRect(x, y, bw - 1, ROW_HEIGHT - 1);
        }
      }
      if (runEnd >= 0) ctx.fillRect(runX, runY, runEnd - runX, ROW_HEIGHT - 1);
    }
  }

  /**
   * The background and every box, as pixels: each box is written once into its row's line of a small
   * canvas (one device line per visible row), and each row's line is then stretched over the row's
   * height with one unsmoothed drawImage; the gaps between rows are filled with the background. Edges
   * are on whole device pixels (pass 1), so the pixels are the ones fillRect would have filled: a box
   * of more than 2 px keeps its 1 px gap on the right, thinner ones none, each row the gap under it.
   * Markers, inlined bars, borders and labels are drawn over them as usual.
   *
   * Why: without a GPU the browser rasterises a canvas on the main thread. One fillRect per box cost a
   * zoom ~6–7 ms there for the ~5,000 boxes of a large profile and ~1 µs more per box (a zoomed-out
   * flame chart has ~30,000); writing the whole 4.6-megapixel canvas as an ImageData cost ~2 ms to fill
   * and ~2.5 ms to put. A row's pixels are the same on each of its lines, so only one line a row is
   * written and put (~40 lines here), and the browser copies it down the row.
   * False when a colour cannot be read back (the caller then fills rectangles, as it does if this throws).
   */
  private paintBoxes(n: number, order: Int32Array, bucketOf: Int32Array, colorOf: (bucket: number) => string): boolean {
    const W = this.canvas.width;
    const H = this.canvas.height;
    const background = this.colorWord(this.theme.background);
    if (background === null) return false;
    const dpr = this.dpr;
    const rowPx = Math.round((ROW_HEIGHT - 1) * dpr);
    // Rows are ROW_HEIGHT apart: at most this many are visible, partly or whole.
    const maxRows = Math.ceil(H / Math.max(1, Math.floor(ROW_HEIGHT * dpr))) + 2;
    if (!this.rowLines || this.rowLines.width !== W || this.rowLines.height !== maxRows) this.rowLines = new ImageData(W, maxRows);
    const px = new Uint32Array(this.rowLines.data.buffer);
    if (!this.rowEnd || this.rowEnd.length !== H) {
      this.rowEnd = new Int32Array(H);
      this.rowLine = new Int32Array(H);
    }
    // Per device line where a visible row starts: where it ends, and which line of rowLines it is.
    const rowEnd = this.rowEnd;
    const rowLine = this.rowLine!;
    rowEnd.fill(0);
    let rows = 0;
    // `order` runs bucket by bucket: a colour is looked up once per bucket.
    let lastBucket = -1;
    let word = 0;
    for (let k = 0; k < n; k++) {
      const d = order[k];
      const bucket = bucketOf[d];
      if (bucket !== lastBucket) {
        const w = this.colorWord(colorOf(bucket));
        if (w === null) return false;
        word = w;
        lastBucket = bucket;
      }
      const top = Math.round(this.drawnY[d] * dpr);
      const first = Math.max(0, top);
      const end = Math.min(H, top + rowPx);
      if (first >= end) continue;
      if (rowEnd[first] === 0) {
        if (rows === maxRows) return false;
        rowEnd[first] = end;
        rowLine[first] = rows;
        px.fill(background, rows * W, (rows + 1) * W);
        rows++;
      }
      const bw = this.drawnW[d];
      const x0 = Math.max(0, Math.round(this.drawnX[d] * dpr));
      const x1 = Math.min(W, Math.round((this.drawnX[d] + (bw <= 2 ? bw : bw - 1)) * dpr));
      const o = rowLine[first] * W;
      // Plain stores for the narrow ones: a fill() call costs more than a few pixels.
      if (x1 - x0 <= 8) for (let i = o + x0; i < o + x1; i++) px[i] = word;
      else px.fill(word, o + x0, o + x1);
    }
    const lines = this.linesCanvas ?? (this.linesCanvas = document.createElement('canvas'));
    if (lines.width !== W || lines.height !== maxRows) {
      lines.width = W;
      lines.height = maxRows;
    }
    lines.getContext('2d', { alpha: false })!.putImageData(this.rowLines, 0, 0, 0, 0, W, Math.max(1, rows));
    const ctx = this.ctx;
    ctx.save();
    try {
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.imageSmoothingEnabled = false;
      ctx.fillStyle = this.theme.background;
      this.stretchRows(lines, rowEnd, rowLine, W, H);
    } finally {
      ctx.restore();
    }
    return true;
  }

  /** paintBoxes' last step: each row's line drawn down the row, the lines between rows filled with the background. */
  private stretchRows(lines: HTMLCanvasElement, rowEnd: Int32Array, rowLine: Int32Array, W: number, H: number): void {
    const ctx = this.ctx;
    for (let y = 0; y < H; ) {
      // A row down to its end (or to the next row's first line, should rounding make them meet), or a
      // run of lines outside every row: the gap under a row, the space past the last one.
      const row = rowEnd[y] > 0;
      const end = row ? rowEnd[y] : H;
      let to = y + 1;
      while (to < end && rowEnd[to] === 0) to++;
      if (row) ctx.drawImage(lines, 0, rowLine[y], W, 1, 0, y, W, to - y);
      else ctx.fillRect(0, y, W, to - y);
      y = to;
    }
  }

  /**
   * A CSS colour's pixel as this canvas stores it — filled over the theme's background on an opaque 1×1
   * canvas and read back, once — or null if unreadable.
   */
  private colorWord(color: string): number | null {
    const key = `${this.theme.background} ${color}`;
    let word = this.colorWords.get(key);
    if (word === undefined) {
      const probe = document.createElement('canvas');
      probe.width = 1;
      probe.height = 1;
      const p = probe.getContext('2d', { alpha: false, willReadFrequently: true });
      if (!p) return null;
      p.fillStyle = this.theme.background;
      p.fillRect(0, 0, 1, 1);
      p.fillStyle = color;
      p.fillRect(0, 0, 1, 1);
      const [r, g, b] = p.getImageData(0, 0, 1, 1).data;
      word = ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
      if (this.colorWords.size > 256) this.colorWords.clear();
      this.colorWords.set(key, word);
    }
    return word;
  }

  private setFont(): void {
    const font = `${this.theme.fontSize}px ${this.theme.font}`;
    if (font !== this.fontKey) {
      this.fontKey = font;
      this.textWidths.clear();
      this.ctx.font = font;
      this.ellipsisWidth = this.ctx.measureText('…').width;
      // Hundreds of distinct labels are measured on the first draw; with a monospaced font (the default)
      // an ASCII label's width is its length times one advance, so measureText runs only a few times.
      const advance = this.ctx.measureText('W').width;
      this.monoWidth = advance > 0 && this.ctx.measureText('i').width === advance && this.ctx.measureText('iW.m_').width === advance * 5 ? advance : 0;
    }
    this.ctx.font = font;
  }

  private measure(text: string): number {
    if (this.monoWidth > 0 && PRINTABLE_ASCII.test(text)) return text.length * this.monoWidth;
    let width = this.textWidths.get(text);
    if (width === undefined) {
      width = this.ctx.measureText(text).width;
      if (this.textWidths.size > 50_000) this.textWidths.clear();
      this.textWidths.set(text, width);
    }
    return width;
  }

  /** The label, or its prefix with an ellipsis, fitting in `room` css pixels; '' if nothing fits. */
  private fit(text: string, room: number): string {
    const full = this.measure(text);
    if (full <= room) return text;
    const perChar = full / text.length;
    let chars = Math.floor((room - this.ellipsisWidth) / perChar);
    if (chars < 2) return '';
    let candidate = text.slice(0, chars) + '…';
    // Proportional fonts and wide characters: step back until it fits (rarely more than once).
    while (chars > 1 && this.measure(candidate) > room) candidate = text.slice(0, --chars) + '…';
    return chars > 1 ? candidate : '';
  }

  /** The box under css-pixel point (x, y) of the canvas, or -1. */
  boxAt(x: number, y: number): number {
    for (let d = 0; d < this.drawnCount; d++) {
      const dx = this.drawnX[d];
      const dy = this.drawnY[d];
      if (x >= dx && x < dx + this.drawnW[d] && y >= dy && y < dy + ROW_HEIGHT) return this.drawn[d];
    }
    return -1;
  }

  /** Css-pixel rectangle of a drawn box (relative to the canvas), or null when not drawn. */
  rectOf(box: number): { x: number; y: number; w: number; h: number } | null {
    for (let d = 0; d < this.drawnCount; d++) if (this.drawn[d] === box) return { x: this.drawnX[d], y: this.drawnY[d], w: this.drawnW[d], h: ROW_HEIGHT - 1 };
    return null;
  }

  /** Whether drawn box `box` carries the marker (tests). */
  isMarked(box: number): boolean {
    for (let d = 0; d < this.drawnCount; d++) if (this.drawn[d] === box) return this.marked[d] === 1;
    return false;
  }

  /** Whether drawn box `box` carries the inlined bar (tests). */
  isInlined(box: number): boolean {
    for (let d = 0; d < this.drawnCount; d++) if (this.drawn[d] === box) return this.inlinedBox[d] === 1;
    return false;
  }

  /** Every drawn box with its css-pixel rectangle, marker and inlined bar, in draw order, in one pass (tests, the benchmark). */
  drawnRects(): { box: number; x: number; y: number; w: number; h: number; marked: boolean; inlined: boolean }[] {
    const out = [];
    for (let d = 0; d < this.drawnCount; d++) out.push({ box: this.drawn[d], x: this.drawnX[d], y: this.drawnY[d], w: this.drawnW[d], h: ROW_HEIGHT - 1, marked: this.marked[d] === 1, inlined: this.inlinedBox[d] === 1 });
    return out;
  }

  /** Drawn boxes, in draw order (for keyboard navigation and tests). */
  drawnBoxes(): number[] {
    return Array.from(this.drawn.subarray(0, this.drawnCount));
  }

  /**
   * Outline the hovered and the selected box. Each outline is an element of the box's size moved over it
   * (with a transform: no layout), so the browser repaints two small rectangles instead of a pane-sized
   * bitmap. Colours come from the theme; the selected outline is drawn under the hover's.
   */
  highlight(hover: number, selected: number): void {
    this.place(this.selectedOutline, selected, this.theme.focus, 2);
    this.place(this.hoverOutline, hover !== selected ? hover : -1, this.theme.foreground, 1);
  }

  private place(el: HTMLElement, box: number, color: string, width: number): void {
    const r = box >= 0 ? this.rectOf(box) : null;
    const key = r ? `${r.x} ${r.y} ${r.w} ${r.h} ${width} ${color}` : '';
    // Only a change is written: the same outline again costs the browser nothing.
    if (this.placed.get(el) === key) return;
    this.placed.set(el, key);
    if (!r) {
      el.hidden = true;
      return;
    }
    el.style.width = `${Math.max(1, r.w)}px`;
    el.style.height = `${r.h}px`;
    el.style.transform = `translate(${r.x}px, ${r.y}px)`;
    el.style.border = `${width}px solid ${color}`;
    el.hidden = false;
  }
}
