/**
 * A band above the flame chart on the same time axis: intervals such as the event loop's blocking
 * episodes, drawn as bars in the window the chart shows, with a tooltip naming each (its length and
 * the line that held the loop). Text from the profile goes only to the tooltip's textContent.
 */
import type { FlameLane } from '../shared/flame/payload';
import type { Theme } from './theme';

export const LANE_HEIGHT = 14;

export class LaneStrip {
  readonly element: HTMLElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private window = { t0: 0, t1: 1 };
  private drawn: { x0: number; x1: number; lane: number; index: number }[] = [];

  constructor(private readonly lanes: FlameLane[], private theme: Theme, private readonly onHover: (text: string | null, x: number, y: number) => void, private readonly describe: (lane: FlameLane, index: number) => string) {
    this.element = document.createElement('div');
    this.element.className = 'hp-lanes';
    this.element.style.height = `${lanes.length * (LANE_HEIGHT + 2) + 2}px`;
    this.canvas = document.createElement('canvas');
    this.canvas.setAttribute('role', 'img');
    this.canvas.setAttribute('aria-label', lanes.map((l) => `${l.title}: ${l.spans.length / 2}`).join('; '));
    this.element.append(this.canvas);
    this.ctx = this.canvas.getContext('2d')!;
    this.canvas.addEventListener('mousemove', (e) => {
      const r = this.canvas.getBoundingClientRect();
      const x = e.clientX - r.left;
      const row = Math.floor((e.clientY - r.top - 1) / (LANE_HEIGHT + 2));
      const hit = this.drawn.find((d) => d.lane === row && x >= d.x0 - 1 && x <= d.x1 + 1);
      this.onHover(hit ? this.describe(this.lanes[hit.lane], hit.index) : null, e.clientX, e.clientY);
    });
    this.canvas.addEventListener('mouseleave', () => this.onHover(null, 0, 0));
  }

  setTheme(theme: Theme): void {
    this.theme = theme;
  }

  /** Draws the window [t0, t1) (µs) of every lane. */
  draw(t0: number, t1: number): void {
    this.window = { t0, t1 };
    const w = this.element.clientWidth;
    const hgt = this.element.clientHeight;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = Math.max(1, Math.round(w * dpr));
    this.canvas.height = Math.max(1, Math.round(hgt * dpr));
    this.canvas.style.width = `${w}px`;
    this.canvas.style.height = `${hgt}px`;
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = this.theme.background;
    ctx.fillRect(0, 0, w, hgt);
    this.drawn = [];
    const scale = w / Math.max(1e-9, t1 - t0);
    this.lanes.forEach((lane, li) => {
      const y = 1 + li * (LANE_HEIGHT + 2);
      ctx.fillStyle = this.theme.muted;
      ctx.globalAlpha = 0.15;
      ctx.fillRect(0, y, w, LANE_HEIGHT);
      ctx.globalAlpha = 1;
      ctx.fillStyle = this.theme.blocked;
      for (let i = 0; i + 1 < lane.spans.length; i += 2) {
        const a = lane.spans[i];
        const b = lane.spans[i + 1];
        if (b < t0 || a > t1) continue;
        const x0 = Math.max(0, (a - t0) * scale);
        const x1 = Math.min(w, Math.max(x0 + 2, (b - t0) * scale));
        ctx.fillRect(x0, y, x1 - x0, LANE_HEIGHT);
        this.drawn.push({ x0, x1, lane: li, index: i / 2 });
      }
    });
  }

  /** Spans drawn in the current window (tests). */
  get drawnSpans(): { lane: number; index: number; x0: number; x1: number }[] {
    return this.drawn.map((d) => ({ ...d }));
  }

  get currentWindow(): { t0: number; t1: number } {
    return { ...this.window };
  }
}
