/**
 * The flamegraph front end: state (view, zoom, filters, search, selection), the toolbar, breadcrumb,
 * tooltip, details and legend, and one or two FlameCanvas panes. All profile text goes to the page
 * through textContent (dom.ts) or canvas fillText: nothing is ever parsed as HTML.
 */
import { CATEGORY_LABELS } from '../shared/flame/categories';
import { sandwich } from '../shared/flame/sandwich';
import { deoptText, knownTierTooltipText, TIER_LABELS, tierName, tierTooltipText } from '../shared/flame/tiers';
import { type FrameTree, collapseTree, filterTree } from '../shared/flame/tree';
import { DEFAULT_VIEW_STATE, type ViewKind, type ViewState } from '../shared/protocol';
import { diffSummary } from './diffSides';
import { availableModes, colorMode, diffShares, type Measure, type PaintContext } from './colors';
import { cachedPainter, type PainterCache } from './painterCache';
import { FlameData } from './data';
import { append, h, replaceChildren } from './dom';
import { basename, int, ms, pct, signedPoints } from './format';
import type { AppMessage, Host } from './host';
import { type Content, FlameCanvas } from './renderer';
import { readTheme, type Theme, watchTheme } from './theme';
import { deoptCounts, tierCodes } from './tierMode';
import { flamechartBoxes, flamegraphBoxes } from './views';
import { LaneStrip } from './lane';
import type { DataChoice } from '../shared/protocol';

type PaneId = 'main' | 'callers' | 'callees';

interface Pane {
  id: PaneId;
  canvas: FlameCanvas;
  tree: FrameTree;
  kind: 'tree' | 'chart';
  hover: number;
}

interface Selection {
  pane: PaneId;
  frame: number;
  box: number;
}

export interface RenderMetric {
  reason: string;
  /** Time spent drawing (JS), ms. */
  renderMs: number;
  /** From the input event to the end of the draw, ms (includes waiting for the animation frame). */
  sinceEventMs: number;
}

const QUIET = new Set(['idle', 'program', 'root']);

/** The sandwich's callers tree is read by path totals; every other tree by self time (colors.ts). */
const measureOf = (pane: { id: PaneId }): Measure => (pane.id === 'callers' ? 'callers' : 'self');

export class App {
  private data: FlameData | undefined;
  private state: ViewState = { ...DEFAULT_VIEW_STATE };
  private canOpenSource = false;
  private theme: Theme = readTheme();
  private filtered: { key: string; tree: FrameTree; mapTo: Int32Array } | undefined;
  private zoom = 0;
  private chartWindows: { t0: number; t1: number; label: string }[] = [];
  private sandwichFunc = -1;
  private sandwichHistory: number[] = [];
  private panes: Pane[] = [];
  private selection: Selection | null = null;
  private matches: Uint8Array | null = null;
  /** Each pane's painter, kept between draws while what it depends on is unchanged. */
  private readonly painters: PainterCache = new Map();
  private hottestCursor = -1;
  private legendKey = '';
  private choices: DataChoice[] = [];
  private lanes: LaneStrip | null = null;
  private pending: { reasons: Set<string>; eventTime: number } | null = null;
  /** Draws so far (metrics is trimmed; this only grows): tests wait for the draw after an action. */
  private draws = 0;
  readonly metrics: RenderMetric[] = [];
  firstPaintMs = -1;

  // DOM
  private readonly header = h('header', { class: 'hp-header' });
  private readonly crumbs = h('nav', { class: 'hp-crumbs', 'aria-label': 'Zoom path' });
  private readonly main = h('main', { class: 'hp-main' });
  private readonly details = h('div', { class: 'hp-details', 'aria-live': 'polite' });
  private readonly legend = h('div', { class: 'hp-legend', 'aria-label': 'Legend' });
  private readonly tooltip = h('div', { class: 'hp-tooltip', role: 'tooltip', id: 'hp-tooltip', hidden: true });
  private readonly searchInput = h('input', { type: 'search', placeholder: 'Search functions', 'aria-label': 'Search functions (plain text or regular expression)', spellcheck: 'false' });
  private readonly searchResult = h('span', { class: 'hp-search-result', 'aria-live': 'polite' });
  private readonly controls = new Map<string, HTMLElement>();

  constructor(private readonly root: HTMLElement, private readonly host: Host) {
    append(root, this.header, this.crumbs, this.main, h('footer', { class: 'hp-footer' }, this.details, this.legend), this.tooltip);
    replaceChildren(this.main, h('p', { class: 'hp-message' }, 'Loading the profile…'));
    watchTheme(() => {
      this.theme = readTheme();
      for (const p of this.panes) p.canvas.setTheme(this.theme);
      this.lanes?.setTheme(this.theme);
      this.renderLegend(true);
      this.invalidate('theme');
    });
    // Redraw on real size changes only (the observer also reports the initial size).
    new ResizeObserver(() => {
      if (this.panes.some((p) => p.canvas.sizeChanged())) this.invalidate('resize');
    }).observe(this.main);
    window.addEventListener('keydown', (e) => {
      if (e.key === '/' && document.activeElement !== this.searchInput) {
        e.preventDefault();
        this.searchInput.focus();
      }
    });
  }

  handle(message: AppMessage): void {
    if (message.type === 'init') this.init(message.payload, message.canOpenSource, message.state, message.choices);
    else if (message.type === 'focus') this.focusFunction(message.file, message.line, message.name);
  }

  /** Parts of a chunked payload arrive: say so while nothing is drawn yet. */
  loading(received: number, total: number): void {
    if (this.data) return;
    replaceChildren(this.main, h('p', { class: 'hp-message', 'data-received': String(received) }, `Loading the profile… (${received} of ${total} parts)`));
  }

  // ── set-up ──────────────────────────────────────────────────────────────────────────────────────
  private init(payload: FlameData['payload'], canOpenSource: boolean, preset?: Partial<ViewState>, choices?: DataChoice[]): void {
    this.choices = choices ?? [];
    // After a failure message replaced the page, a new payload brings the UI back.
    if (!this.header.isConnected) replaceChildren(this.root, this.header, this.crumbs, this.main, h('footer', { class: 'hp-footer' }, this.details, this.legend), this.tooltip);
    this.data = new FlameData(payload);
    performance.mark('hotpath-model');
    this.canOpenSource = canOpenSource;
    this.state = { ...DEFAULT_VIEW_STATE, ...(this.data.isDiff ? { color: 'diff' } : {}), ...this.host.savedState(), ...preset };
    if (!this.data.timeline && this.state.view === 'flamechart') this.state.view = 'flamegraph';
    this.filtered = undefined;
    this.zoom = 0;
    this.chartWindows = [];
    this.sandwichHistory = [];
    this.sandwichFunc = -1;
    this.selection = null;
    this.hottestCursor = -1;
    document.title = `Hotpath — ${payload.meta.title}`;
    this.buildHeader();
    this.searchInput.value = this.state.search;
    this.updateSearch();
    this.buildPanes();
    this.renderLegend(true);
    this.showDetails(null);
    performance.mark('hotpath-ui');
    this.invalidate('init');
  }

  private buildHeader(): void {
    const data = this.data!;
    const meta = data.payload.meta;
    const perRequest = data.perRequest(meta.durationUs);
    const summary = diffSummary(data.payload, (us) => data.amount(us)) ?? (data.isBytes
      ? `${data.amount(meta.durationUs)} allocated${perRequest ? ` (${perRequest})` : ''} · ${int(meta.sampleCount)} samples`
      : `${ms(meta.durationUs)} · ${int(meta.sampleCount)} samples${meta.thread ? ` · ${meta.thread}` : ''}`);
    const toggle = (key: 'icicle' | 'hideIdle' | 'hideGc' | 'hideNode' | 'justMyCode' | 'byPackage', label: string, title: string) => {
      const box = h('input', { type: 'checkbox', id: `hp-${key}` });
      box.checked = this.state[key];
      box.addEventListener('change', () => this.set({ [key]: box.checked }, key === 'icicle' ? 'orientation' : 'filter'));
      this.controls.set(key, box);
      return h('label', { class: 'hp-check', title }, box, label);
    };
    const viewButton = (view: ViewKind, label: string, enabled: boolean) => {
      const b = h('button', { type: 'button', 'aria-pressed': String(this.state.view === view), disabled: !enabled, 'data-view': view }, label);
      b.addEventListener('click', () => this.setView(view));
      this.controls.set(`view-${view}`, b);
      return b;
    };
    const color = h('select', { 'aria-label': 'Colour by' });
    for (const m of availableModes(data)) {
      const o = h('option', { value: m.id }, m.label);
      o.selected = m.id === colorMode(this.state.color, data).id;
      color.append(o);
    }
    color.addEventListener('change', () => this.set({ color: color.value }, 'color'));
    this.controls.set('color', color);
    const regex = h('button', { type: 'button', 'aria-pressed': String(this.state.regex), title: 'Use a regular expression', 'aria-label': 'Regular expression' }, '.*');
    regex.addEventListener('click', () => {
      this.state.regex = !this.state.regex;
      regex.setAttribute('aria-pressed', String(this.state.regex));
      this.updateSearch();
      this.invalidate('search');
    });
    this.searchInput.oninput = () => {
      this.state.search = this.searchInput.value;
      this.updateSearch();
      this.invalidate('search');
    };
    this.searchInput.onkeydown = (e) => {
      if (e.key === 'Escape') {
        this.searchInput.value = '';
        this.searchInput.oninput?.(e);
      }
    };
    const hottest = h('button', { type: 'button', title: 'Select the frame with the next most self time (N)' }, 'Next hottest');
    hottest.addEventListener('click', () => this.nextHottest());
    const reset = h('button', { type: 'button', title: 'Reset zoom (Home)' }, 'Reset');
    reset.addEventListener('click', () => this.resetZoom());
    // Other datasets of the run (CPU time, allocations): the host answers `showData` with a new payload.
    const datasets = this.choices.length > 1
      ? h('span', { class: 'hp-group hp-views', role: 'group', 'aria-label': 'Data' }, ...this.choices.map((c) => {
        const b = h('button', { type: 'button', 'aria-pressed': String(c.active), 'data-choice': c.id }, c.label);
        b.addEventListener('click', () => { if (!c.active) this.host.post({ type: 'showData', id: c.id }); });
        return b;
      }))
      : null;
    replaceChildren(
      this.header,
      h('span', { class: 'hp-title', title: meta.source }, meta.title),
      h('span', { class: 'hp-summary', title: summary, 'data-diff-sides': data.payload.diff?.sides ? '1' : undefined }, summary),
      datasets,
      h('span', { class: 'hp-group', role: 'group', 'aria-label': 'View' },
        viewButton('flamegraph', 'Flamegraph', true), viewButton('flamechart', 'Flame chart', data.timeline !== undefined), viewButton('sandwich', 'Sandwich', true)),
      toggle('icicle', 'Icicle', 'Root at the top'),
      h('span', { class: 'hp-group' }, h('span', { class: 'hp-label' }, 'Colour'), color),
      h('span', { class: 'hp-group', role: 'group', 'aria-label': 'Filters' },
        toggle('hideIdle', 'Hide idle', 'Hide (idle) and (program)'),
        toggle('hideGc', 'Hide GC', 'Hide (garbage collector)'),
        toggle('hideNode', 'Hide Node internals', 'Fold node: internals into their callers'),
        toggle('justMyCode', 'Just my code', 'Fold everything but your code into its callers'),
        ...(data.hasPackages ? [toggle('byPackage', 'By package', 'Fold each npm package\'s frames into one frame named after the package')] : [])),
      h('span', { class: 'hp-group', role: 'search' }, this.searchInput, regex, this.searchResult),
      hottest,
      reset,
    );
  }

  private buildPanes(): void {
    const data = this.data!;
    const tree = this.currentTree();
    const make = (id: PaneId, label: string, title?: string): Pane => {
      const el = h('div', { class: 'hp-pane', 'data-pane': id }, title ? h('span', { class: 'hp-pane-title' }, title) : null);
      this.main.append(el);
      const pane: Pane = { id, canvas: new FlameCanvas(el, this.theme, label), tree, kind: 'tree', hover: -1 };
      this.wire(pane);
      return pane;
    };
    replaceChildren(this.main);
    this.lanes = null;
    const lanes = data.payload.meta.lanes?.filter((l) => l.spans.length > 0) ?? [];
    if (this.state.view === 'flamechart' && lanes.length) {
      this.lanes = new LaneStrip(lanes, this.theme, (text, x, y) => this.showLaneTooltip(text, x, y), (lane, i) => lane.labels[i] ?? '');
      this.main.append(this.lanes.element, ...lanes.map((l) => h('span', { class: 'hp-lane-title' }, l.title)));
    }
    if (this.state.view === 'sandwich') {
      if (this.sandwichFunc < 0) this.sandwichFunc = this.defaultSandwichFunc();
      this.panes = [make('callers', 'Callers of the selected function', 'Callers ↑'), make('callees', 'Callees of the selected function', 'Callees ↓')];
    } else {
      const pane = make('main', this.state.view === 'flamechart' ? 'Flame chart' : 'Flamegraph');
      pane.kind = this.state.view === 'flamechart' ? 'chart' : 'tree';
      this.panes = [pane];
    }
    void data;
  }

  // ── state ───────────────────────────────────────────────────────────────────────────────────────
  private set(patch: Partial<ViewState>, reason: string): void {
    Object.assign(this.state, patch);
    this.host.saveState(this.state);
    if (reason === 'filter') {
      this.zoom = 0;
      this.selection = null;
      this.hottestCursor = -1;
      if (this.state.view === 'sandwich') this.sandwichHistory = [];
      this.updateSearch();
    }
    if (reason === 'color') this.renderLegend(true);
    this.invalidate(reason);
  }

  private setView(view: ViewKind): void {
    if (view === this.state.view) return;
    if (view === 'sandwich') {
      const sel = this.selection;
      const pane = sel && this.panes.find((p) => p.id === sel.pane);
      this.sandwichFunc = sel && pane ? this.data!.canonical(pane.tree.func[sel.frame]) : this.defaultSandwichFunc();
      this.sandwichHistory = [];
    }
    this.state.view = view;
    this.host.saveState(this.state);
    for (const v of ['flamegraph', 'flamechart', 'sandwich']) this.controls.get(`view-${v}`)?.setAttribute('aria-pressed', String(v === view));
    this.selection = null;
    this.buildPanes();
    this.showDetails(null);
    this.invalidate('view');
  }

  private hiddenKey(): string {
    const s = this.state;
    return `${+s.hideIdle}${+s.hideGc}${+s.hideNode}${+s.justMyCode}${+(s.byPackage && this.data!.hasPackages)}`;
  }

  /** The aggregated tree under the current filters (cached per filter combination). */
  private currentTree(): FrameTree {
    const data = this.data!;
    const key = this.hiddenKey();
    if (key === '00000') return data.base;
    if (this.filtered?.key !== key) {
      const s = this.state;
      const rootFunc = data.base.func[0];
      const hidden = (f: number) => {
        if (f === rootFunc) return false;
        const c = data.category(f);
        return (s.hideIdle && (c === 'idle' || c === 'program')) || (s.hideGc && c === 'gc') || (s.hideNode && c === 'node') || (s.justMyCode && c !== 'user');
      };
      let { tree, mapTo } = filterTree(data.base, hidden);
      if (s.byPackage && data.hasPackages) {
        // Packages fold after the filters, so a hidden Node internal between two package frames still joins them.
        const folded = collapseTree(tree, (f) => (f < data.packageFunc.length ? data.packageFunc[f] : -1));
        for (let i = 0; i < mapTo.length; i++) mapTo[i] = folded.mapTo[mapTo[i]];
        tree = folded.tree;
      }
      this.filtered = { key, tree, mapTo };
    }
    return this.filtered.tree;
  }

  private currentMapTo(): Int32Array | null {
    return this.hiddenKey() === '00000' ? null : (this.currentTree(), this.filtered!.mapTo);
  }

  private defaultSandwichFunc(): number {
    const tree = this.currentTree();
    const data = this.data!;
    const self = new Float64Array(data.payload.functions.count);
    for (let i = 1; i < tree.count; i++) self[data.canonical(tree.func[i])] += tree.selfUs[i];
    let best = tree.func[0];
    for (let f = 0; f < self.length; f++) if (!QUIET.has(data.category(f)) && self[f] > self[best]) best = f;
    return best;
  }

  // ── drawing ─────────────────────────────────────────────────────────────────────────────────────
  /** Schedule a redraw on the next animation frame; `eventTime` is the input event's timeStamp. */
  invalidate(reason: string, eventTime = performance.now()): void {
    if (!this.data) return;
    if (this.pending) {
      this.pending.reasons.add(reason);
      this.pending.eventTime = Math.min(this.pending.eventTime, eventTime);
      return;
    }
    this.pending = { reasons: new Set([reason]), eventTime };
    requestAnimationFrame(() => {
      const pending = this.pending!;
      this.pending = null;
      const started = performance.now();
      this.draw();
      this.draws++;
      const now = performance.now();
      this.metrics.push({ reason: [...pending.reasons].join('+'), renderMs: now - started, sinceEventMs: now - pending.eventTime });
      if (this.metrics.length > 1000) this.metrics.splice(0, 500);
      if (this.firstPaintMs < 0) {
        this.firstPaintMs = now;
        performance.mark('hotpath-first-paint');
      }
    });
  }

  private draw(): void {
    const data = this.data!;
    const tree = this.currentTree();
    const orientationFlame = this.state.icicle ? 'down' : 'up';
    const dimmed = this.matches ? (tree2: FrameTree) => (frame: number) => this.matches![tree2.func[frame]] === 0 : () => null;
    for (const pane of this.panes) {
      pane.canvas.resize();
      let content: Content;
      const w = pane.canvas.width;
      if (pane.id === 'main' && pane.kind === 'tree') {
        pane.tree = tree;
        if (this.zoom >= tree.count) this.zoom = 0;
        const { boxes, t0, t1 } = flamegraphBoxes(tree, this.zoom, w);
        content = this.content(pane, boxes, t0, t1, orientationFlame, dimmed(tree));
      } else if (pane.id === 'main') {
        pane.tree = tree;
        const timeline = data.timeline!;
        const win = this.chartWindows[this.chartWindows.length - 1] ?? { t0: 0, t1: timeline.endUs };
        const boxes = flamechartBoxes(timeline, tree, this.currentMapTo(), win.t0, win.t1, w);
        content = this.content(pane, boxes, win.t0, win.t1, 'down', dimmed(tree));
        this.lanes?.draw(win.t0, win.t1);
      } else {
        const s = sandwich(tree, this.sandwichFunc, data.hasInlined ? (f) => data.canonical(f) : undefined);
        pane.tree = pane.id === 'callers' ? s.callers : s.callees;
        const { boxes, t0, t1 } = flamegraphBoxes(pane.tree, 0, w);
        content = this.content(pane, boxes, t0, t1, pane.id === 'callers' ? 'up' : 'down', dimmed(pane.tree));
      }
      const previous = pane.canvas.contentValue;
      const keepScroll = previous !== null && previous.boxes.rows === content.boxes.rows && previous.orientation === content.orientation;
      pane.canvas.setContent(content, keepScroll);
      pane.canvas.render();
      this.restoreSelectionBox(pane);
      pane.canvas.highlight(pane.hover, this.selection?.pane === pane.id ? this.selection.box : -1);
    }
    this.renderCrumbs();
    this.renderLegend();
  }

  private content(pane: Pane, boxes: Content['boxes'], t0: number, t1: number, orientation: 'up' | 'down', dimmed: ((frame: number) => boolean) | null): Content {
    const data = this.data!;
    const ctx: PaintContext = { data, tree: pane.tree, theme: this.theme, measure: measureOf(pane) };
    const painter = cachedPainter(this.painters, pane.id, colorMode(this.state.color, data), ctx);
    const tree = pane.tree;
    const rootLabel = pane.id === 'main' ? `all (${data.amount(tree.totalUs[0])})` : '';
    const anyInlined = data.hasInlined;
    const inlined = anyInlined ? (frame: number) => frame > 0 && data.inlinedHow(tree.func[frame]) > 0 : null;
    const label = (frame: number) => (frame === 0 && rootLabel ? rootLabel : anyInlined && inlined!(frame) ? `${data.name(tree.func[frame])} (inlined)` : data.name(tree.func[frame]));
    const deopts = deoptCounts(data);
    const marked = deopts ? (frame: number) => deopts[tree.func[frame]] > 0 : null;
    pane.hover = -1;
    return { boxes, t0, t1, orientation, painter, label, dimmed, marked, inlined };
  }

  /** After a redraw the selected frame may be drawn as a different box: find it again. */
  private restoreSelectionBox(pane: Pane): void {
    const sel = this.selection;
    if (!sel || sel.pane !== pane.id) return;
    const boxes = pane.canvas.contentValue!.boxes;
    if (sel.box >= 0 && sel.box < boxes.count && boxes.frame[sel.box] === sel.frame) return;
    sel.box = -1;
    for (let b = 0; b < boxes.count; b++) if (boxes.frame[b] === sel.frame) { sel.box = b; break; }
  }

  // ── breadcrumb, legend, details, tooltip ────────────────────────────────────────────────────────
  private renderCrumbs(): void {
    const data = this.data!;
    const crumb = (label: string, current: boolean, onClick: () => void) => {
      const b = h('button', { type: 'button', 'aria-current': current ? 'true' : undefined, title: label }, label);
      b.addEventListener('click', onClick);
      return b;
    };
    const items: HTMLElement[] = [];
    if (this.state.view === 'flamegraph') {
      const tree = this.currentTree();
      const path: number[] = [];
      for (let f = this.zoom; f >= 0; f = tree.parent[f]) path.unshift(f);
      for (const f of path) items.push(crumb(f === 0 ? 'all' : data.name(tree.func[f]), f === this.zoom, () => this.zoomTo(f)));
    } else if (this.state.view === 'flamechart') {
      items.push(crumb('whole profile', this.chartWindows.length === 0, () => this.zoomChart(0)));
      this.chartWindows.forEach((w, i) => items.push(crumb(w.label, i === this.chartWindows.length - 1, () => this.zoomChart(i + 1))));
    } else {
      const funcs = [...this.sandwichHistory, this.sandwichFunc];
      funcs.forEach((f, i) => items.push(crumb(data.name(f), i === funcs.length - 1, () => {
        this.sandwichHistory = funcs.slice(0, i);
        this.sandwichFunc = f;
        this.selection = null;
        this.invalidate('sandwich');
      })));
    }
    const nodes: (HTMLElement | string)[] = [];
    items.forEach((it, i) => {
      if (i > 0) nodes.push(h('span', { class: 'hp-sep', 'aria-hidden': 'true' }, '›'));
      nodes.push(it);
    });
    replaceChildren(this.crumbs, ...nodes);
  }

  /** The legend of the colour mode; in the sandwich view it names the selected function. */
  private renderLegend(force = false): void {
    const data = this.data;
    if (!data) return;
    const mode = colorMode(this.state.color, data);
    const inSandwich = this.state.view === 'sandwich' && this.sandwichFunc >= 0;
    const key = `${mode.id}|${inSandwich ? this.sandwichFunc : -1}|${this.hiddenKey()}`;
    if (!force && key === this.legendKey) return;
    this.legendKey = key;
    const tree = this.currentTree();
    const legend = mode.legend({ data, tree, theme: this.theme, sandwich: inSandwich ? { name: data.name(this.sandwichFunc) } : undefined });
    const entries = legend.entries;
    // The deopt marker is drawn in every mode: say what it means in every legend.
    if (!entries.some((e) => e.marker) && deoptCounts(data)?.some((n) => n > 0)) entries.push({ color: this.theme.deopt, label: 'deoptimized (count in the tooltip)', marker: true });
    const inlinedEntry = data.hasInlined ? h('span', { class: 'hp-legend-entry', 'data-inlined': 'true' }, h('span', { class: 'hp-swatch hp-inlined-marker', 'aria-hidden': 'true' }), 'inlined: code V8 ran inside its caller\'s frame, where Hotpath placed it') : null;
    const items = entries.map((e) => {
      if (e.scale) {
        // A continuous scale reads as one labelled gradient: "little ▬▬▬ most self time".
        const bar = h('span', { class: 'hp-swatch hp-scale', 'aria-hidden': 'true' });
        bar.style.background = `linear-gradient(to right, ${e.scale.colors.join(', ')})`;
        return h('span', { class: 'hp-legend-entry', 'aria-label': `${e.label}: ${e.scale.from} to ${e.scale.to}` }, e.scale.from, bar, e.scale.to);
      }
      const swatch = h('span', { class: e.marker ? 'hp-swatch hp-marker' : 'hp-swatch', 'aria-hidden': 'true' });
      if (!e.marker) swatch.style.background = e.color;
      return h('span', e.marker ? { class: 'hp-legend-entry', 'data-marker': 'true' } : { class: 'hp-legend-entry' }, swatch, e.label);
    });
    replaceChildren(this.legend, h('strong', {}, `${legend.title}:`), ...items, inlinedEntry, legend.note ? h('span', { class: 'hp-legend-note hp-muted' }, legend.note) : null);
  }

  /** The lines describing one frame, as text nodes (for the tooltip and the details bar). */
  private describe(pane: Pane, frame: number, box: number): HTMLElement[] {
    const data = this.data!;
    const tree = pane.tree;
    const f = tree.func[frame];
    const total = data.durationUs;
    const measure = measureOf(pane);
    const rows: HTMLElement[] = [h('span', { class: 'hp-row hp-fn' }, frame === 0 && pane.id === 'main' ? 'all' : data.name(f))];
    const location = data.location(f);
    if (location) rows.push(h('span', { class: 'hp-row hp-path' }, location, data.mapped(f) ? h('span', { class: 'hp-muted' }, ' (source-mapped)') : null));
    if (measure === 'callers' && frame > 0) {
      // A caller frame stands for a call path into the selected function: its total is that function's
      // time through the path; its own self time is not part of this tree.
      const focus = data.name(tree.func[0]);
      const via = tree.totalUs[frame];
      rows.push(h('span', { class: 'hp-row' }, `Calls into ${focus}: ${data.amount(via)} = ${pct(tree.totalUs[0] > 0 ? via / tree.totalUs[0] : 0)} of ${focus}'s ${data.isBytes ? 'bytes' : 'time'} (${pct(via / total)} of total)`));
    } else if (measure === 'callers') {
      rows.push(h('span', { class: 'hp-row' }, `Total ${data.amount(tree.totalUs[0])} (${pct(tree.totalUs[0] / total)}), recursion counted once`));
    } else {
      const within = pane.id === 'callees' ? ` within ${data.name(tree.func[0])}` : '';
      const perRequest = data.perRequest(tree.selfUs[frame]);
      rows.push(h('span', { class: 'hp-row' }, `${data.isBytes ? 'Allocated here' : 'Self'} ${data.amount(tree.selfUs[frame])} (${perRequest ? `${perRequest}, ` : ''}${pct(tree.selfUs[frame] / total)}) · Total ${data.amount(tree.totalUs[frame])} (${pct(tree.totalUs[frame] / total)})${within}`));
    }
    const category = data.category(f);
    const pkg = data.pkg(f);
    rows.push(h('span', { class: 'hp-row hp-muted' }, `${CATEGORY_LABELS[category]}${pkg ? ` · package ${pkg}` : ''}`));
    const how = data.inlinedHow(f);
    const intoFunc = how > 0 ? data.inlinedInto(f) : -1;
    const into = intoFunc >= 0 ? data.name(intoFunc) : '';
    if (how > 0) rows.push(h('span', { class: 'hp-row', 'data-inlined': String(how) }, inlinedText(how, into, data.isBytes)));
    const tiers = tierCodes(data);
    const deopts = deoptCounts(data);
    if (tiers || deopts) {
      const parts: string[] = [];
      const extras = data.payload.functions.extras;
      if (tiers && how > 0 && into) parts.push(`Tier: ${TIER_LABELS[tierName(tiers[f])]} — the code of ${into} it ran inlined in`);
      else if (tiers) parts.push(tierName(tiers[f]) === 'unknown' ? tierTooltipText(tiers[f], extras?.tierUnknown?.[f]) : knownTierTooltipText(tiers[f], extras?.ranInlined?.[f]));
      if (deopts) parts.push(deoptText(deopts[f]));
      rows.push(h('span', { class: 'hp-row', 'data-v8': 'true' }, parts.join(' · ')));
    }
    if (pane.kind === 'chart' && box >= 0) {
      const c = pane.canvas.contentValue!;
      rows.push(h('span', { class: 'hp-row hp-muted' }, `This span: ≈ ${data.amount(c.boxes.x1[box] - c.boxes.x0[box])} (totals above are for the whole profile)`));
    }
    if (data.isDiff && tree.extraUs) {
      const d = diffShares(data, tree, frame, measure);
      const what = measure === 'callers' ? (frame > 0 ? 'Share through this caller' : 'Total share') : 'Self share';
      rows.push(h('span', { class: 'hp-row' }, `${what} ${pct(d.before)} before → ${pct(d.after)} after (${signedPoints(d.delta)})`));
    }
    return rows;
  }

  private showDetails(target: { pane: Pane; frame: number; box: number } | null): void {
    if (!target || !this.data) {
      replaceChildren(this.details, h('span', { class: 'hp-muted' }, 'Hover a frame for details; click to zoom. Keys: arrows move, Enter zooms, Esc zooms out, N next hottest, / search, O opens the source.'));
      return;
    }
    const { pane, frame, box } = target;
    const data = this.data;
    const f = pane.tree.func[frame];
    const rows = this.describe(pane, frame, box);
    const file = data.file(f);
    if (file) {
      const line = data.line(f);
      const where = line > 0 ? `${file}:${line}` : file;
      const source = this.canOpenSource
        ? (() => {
          const b = h('button', { type: 'button', class: 'hp-link', title: 'Open the source (O)' }, `Open ${basename(file)}${line > 0 ? `:${line}` : ''}`);
          b.addEventListener('click', () => this.openSource(f));
          return b;
        })()
        : h('span', { class: 'hp-row hp-muted' }, 'Source: ', h('span', { class: 'hp-path' }, where));
      rows.push(h('span', { class: 'hp-row' }, source));
    }
    replaceChildren(this.details, ...rows);
  }

  private showTooltip(pane: Pane, box: number, clientX: number, clientY: number): void {
    const c = pane.canvas.contentValue!;
    replaceChildren(this.tooltip, ...this.describe(pane, c.boxes.frame[box], box));
    this.tooltip.hidden = false;
    const tw = this.tooltip.offsetWidth;
    const th = this.tooltip.offsetHeight;
    const x = clientX + 14 + tw > window.innerWidth ? Math.max(0, clientX - 14 - tw) : clientX + 14;
    const y = clientY + 16 + th > window.innerHeight ? Math.max(0, clientY - 12 - th) : clientY + 16;
    this.tooltip.style.left = `${x}px`;
    this.tooltip.style.top = `${y}px`;
    // Written once: a write to the canvas element, even of the same value, makes the browser re-upload its bitmap.
    if (pane.canvas.canvas.getAttribute('aria-describedby') !== 'hp-tooltip') pane.canvas.canvas.setAttribute('aria-describedby', 'hp-tooltip');
  }

  private hideTooltip(): void {
    this.tooltip.hidden = true;
  }

  /** The lane's tooltip: one line of text (profile-controlled, so textContent only). */
  private showLaneTooltip(text: string | null, clientX: number, clientY: number): void {
    if (text === null) return this.hideTooltip();
    replaceChildren(this.tooltip, h('span', { class: 'hp-row' }, text));
    this.tooltip.hidden = false;
    const tw = this.tooltip.offsetWidth;
    const x = clientX + 14 + tw > window.innerWidth ? Math.max(0, clientX - 14 - tw) : clientX + 14;
    this.tooltip.style.left = `${x}px`;
    this.tooltip.style.top = `${clientY + 16}px`;
  }

  // ── search ──────────────────────────────────────────────────────────────────────────────────────
  private updateSearch(): void {
    const data = this.data;
    if (!data) return;
    const text = this.state.search.trim();
    this.searchResult.classList.remove('hp-error');
    if (text === '') {
      this.matches = null;
      this.searchResult.textContent = '';
      return;
    }
    let re: RegExp;
    try {
      re = this.state.regex ? new RegExp(text, 'i') : new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
    } catch (err) {
      this.matches = null;
      this.searchResult.classList.add('hp-error');
      this.searchResult.textContent = `Invalid regular expression: ${(err as Error).message}`;
      return;
    }
    const n = data.payload.functions.count;
    const matches = new Uint8Array(n);
    let functions = 0;
    // An inlined frame's function is counted as the function it is a frame of (it shares its name).
    for (let f = 0; f < n; f++) if (re.test(data.searchText(f))) { matches[f] = 1; if (data.canonical(f) === f) functions++; }
    this.matches = matches;
    // The matched share: time under matching frames, nested matches counted once.
    const tree = this.currentTree();
    let us = 0;
    for (let i = 1; i < tree.count; ) {
      if (matches[tree.func[i]]) { us += tree.totalUs[i]; i = tree.end[i]; } else i++;
    }
    this.searchResult.textContent = functions === 0 ? 'No match' : `${functions} function${functions === 1 ? '' : 's'} · ${pct(us / data.durationUs)} of total (${data.amount(us)})`;
    this.searchResult.dataset.sharePct = ((us / data.durationUs) * 100).toFixed(3);
  }

  // ── interaction ─────────────────────────────────────────────────────────────────────────────────
  private wire(pane: Pane): void {
    const canvas = pane.canvas.canvas;
    const local = (e: MouseEvent) => {
      const r = canvas.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    canvas.addEventListener('mousemove', (e) => {
      const started = performance.now();
      const { x, y } = local(e);
      const box = pane.canvas.boxAt(x, y);
      if (box !== pane.hover) {
        pane.hover = box;
        pane.canvas.highlight(box, this.selection?.pane === pane.id ? this.selection.box : -1);
      }
      if (box >= 0) this.showTooltip(pane, box, e.clientX, e.clientY);
      else this.hideTooltip();
      const cursor = box >= 0 ? 'pointer' : 'default';
      if (canvas.style.cursor !== cursor) canvas.style.cursor = cursor;
      const now = performance.now();
      this.metrics.push({ reason: 'hover', renderMs: now - started, sinceEventMs: now - e.timeStamp });
    });
    canvas.addEventListener('mouseleave', () => {
      pane.hover = -1;
      pane.canvas.highlight(-1, this.selection?.pane === pane.id ? this.selection.box : -1);
      this.hideTooltip();
    });
    canvas.addEventListener('click', (e) => {
      const { x, y } = local(e);
      const box = pane.canvas.boxAt(x, y);
      if (box < 0) return;
      this.activate(pane, box, e.timeStamp);
    });
    canvas.addEventListener('dblclick', (e) => {
      const { x, y } = local(e);
      const box = pane.canvas.boxAt(x, y);
      if (box >= 0 && this.canOpenSource) this.openSource(pane.tree.func[pane.canvas.contentValue!.boxes.frame[box]]);
    });
    canvas.addEventListener('wheel', (e) => {
      const c = pane.canvas.contentValue;
      if (!c) return;
      if (pane.kind === 'chart' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        const { x } = local(e);
        const at = c.t0 + (x / pane.canvas.width) * (c.t1 - c.t0);
        const factor = Math.exp(e.deltaY * 0.002);
        const end = this.data!.timeline!.endUs;
        const t0 = Math.max(0, at - (at - c.t0) * factor);
        const t1 = Math.min(end, at + (c.t1 - at) * factor);
        if (t1 - t0 < 1) return;
        const last = this.chartWindows[this.chartWindows.length - 1];
        const win = { t0, t1, label: `${this.data!.amount(t0)} – ${this.data!.amount(t1)}` };
        if (last && last.label.includes('–')) this.chartWindows[this.chartWindows.length - 1] = win;
        else this.chartWindows.push(win);
        if (t0 <= 0 && t1 >= end) this.chartWindows = [];
        this.invalidate('wheel-zoom', e.timeStamp);
        return;
      }
      e.preventDefault();
      pane.canvas.scrollBy(e.deltaY);
      this.invalidate('scroll', e.timeStamp);
    }, { passive: false });
    canvas.addEventListener('keydown', (e) => this.onKey(pane, e));
    canvas.addEventListener('focus', () => {
      if (this.selection?.pane === pane.id) return;
      const boxes = pane.canvas.drawnBoxes();
      if (boxes.length) this.select(pane, boxes[0]);
    });
  }

  /** Click or Enter on a box: zoom (flamegraph, flame chart) or re-centre the sandwich. */
  private activate(pane: Pane, box: number, eventTime: number): void {
    const c = pane.canvas.contentValue!;
    const frame = c.boxes.frame[box];
    this.select(pane, box);
    if (pane.kind === 'chart') {
      const t0 = c.boxes.x0[box];
      const t1 = c.boxes.x1[box];
      this.chartWindows.push({ t0, t1, label: this.data!.name(pane.tree.func[frame]) });
      this.invalidate('zoom', eventTime);
    } else if (pane.id === 'main') {
      this.zoomTo(frame, eventTime);
    } else {
      const f = this.data!.canonical(pane.tree.func[frame]);
      if (f !== this.sandwichFunc) {
        this.sandwichHistory.push(this.sandwichFunc);
        this.sandwichFunc = f;
        this.selection = null;
        this.invalidate('zoom', eventTime);
      }
    }
  }

  private zoomTo(frame: number, eventTime = performance.now()): void {
    this.zoom = frame;
    this.panes[0]?.canvas.revealRow(0);
    this.invalidate('zoom', eventTime);
  }

  private zoomChart(depth: number): void {
    this.chartWindows = this.chartWindows.slice(0, depth);
    this.invalidate('zoom');
  }

  private resetZoom(): void {
    if (this.state.view === 'flamegraph') this.zoomTo(0);
    else if (this.state.view === 'flamechart') this.zoomChart(0);
    else if (this.sandwichHistory.length) {
      this.sandwichFunc = this.sandwichHistory[0];
      this.sandwichHistory = [];
      this.invalidate('zoom');
    }
  }

  private zoomOut(): void {
    if (this.state.view === 'flamegraph') {
      if (this.zoom > 0) this.zoomTo(this.currentTree().parent[this.zoom]);
    } else if (this.state.view === 'flamechart') {
      this.zoomChart(Math.max(0, this.chartWindows.length - 1));
    } else if (this.sandwichHistory.length) {
      this.sandwichFunc = this.sandwichHistory.pop()!;
      this.invalidate('zoom');
    }
  }

  private select(pane: Pane, box: number): void {
    const frame = pane.canvas.contentValue!.boxes.frame[box];
    this.selection = { pane: pane.id, frame, box };
    for (const p of this.panes) p.canvas.highlight(p.hover, p === pane ? box : -1);
    this.showDetails({ pane, frame, box });
  }

  private onKey(pane: Pane, e: KeyboardEvent): void {
    const c = pane.canvas.contentValue;
    if (!c) return;
    const sel = this.selection?.pane === pane.id ? this.selection : null;
    const move = (dRow: number, dX: number) => {
      const boxes = c.boxes;
      const drawn = pane.canvas.drawnBoxes();
      if (!sel || sel.box < 0) {
        if (drawn.length) this.select(pane, drawn[0]);
        return;
      }
      const row = boxes.row[sel.box] + dRow;
      const mid = (boxes.x0[sel.box] + boxes.x1[sel.box]) / 2;
      let best = -1;
      let bestDistance = Infinity;
      for (const b of drawn) {
        if (boxes.row[b] !== row) continue;
        const bm = (boxes.x0[b] + boxes.x1[b]) / 2;
        if (dX === 0) {
          const d = boxes.x0[b] <= mid && boxes.x1[b] >= mid ? 0 : Math.min(Math.abs(boxes.x0[b] - mid), Math.abs(boxes.x1[b] - mid));
          if (d < bestDistance) { best = b; bestDistance = d; }
        } else if ((dX > 0 && bm > mid) || (dX < 0 && bm < mid)) {
          const d = Math.abs(bm - mid);
          if (d < bestDistance) { best = b; bestDistance = d; }
        }
      }
      if (best >= 0) {
        this.select(pane, best);
        pane.canvas.revealRow(boxes.row[best]);
        this.invalidate('keyboard');
      }
    };
    const up = c.orientation === 'up' ? 1 : -1;
    switch (e.key) {
      case 'ArrowUp': move(up, 0); break;
      case 'ArrowDown': move(-up, 0); break;
      case 'ArrowLeft': move(0, -1); break;
      case 'ArrowRight': move(0, 1); break;
      case 'Enter': case ' ': if (sel && sel.box >= 0) this.activate(pane, sel.box, e.timeStamp); break;
      case 'Escape': case 'Backspace': this.zoomOut(); break;
      case 'Home': this.resetZoom(); break;
      case 'n': case 'N': this.nextHottest(); break;
      case 'o': case 'O': if (sel && this.canOpenSource) this.openSource(pane.tree.func[sel.frame]); break;
      default: return;
    }
    e.preventDefault();
  }

  /** Select the frame with the next most self time (flamegraph view), zooming out if it is hidden. */
  private nextHottest(): void {
    if (this.state.view !== 'flamegraph') this.setView('flamegraph');
    const data = this.data!;
    const tree = this.currentTree();
    const order: number[] = [];
    for (let i = 1; i < tree.count; i++) if (tree.selfUs[i] > 0 && !QUIET.has(data.category(tree.func[i]))) order.push(i);
    order.sort((a, b) => tree.selfUs[b] - tree.selfUs[a] || a - b);
    if (!order.length) return;
    this.hottestCursor = (this.hottestCursor + 1) % Math.min(order.length, 100);
    this.revealFrame(order[this.hottestCursor]);
  }

  /** Select `frame` of the flamegraph tree, zooming so that it is drawn. */
  private revealFrame(frame: number): void {
    const tree = this.currentTree();
    const pane = this.panes[0];
    const inZoom = frame >= this.zoom && frame < tree.end[this.zoom];
    const wideEnough = (tree.totalUs[frame] / tree.totalUs[this.zoom]) * pane.canvas.width >= 4;
    if (!inZoom || !wideEnough) this.zoom = (tree.totalUs[frame] / tree.totalUs[0]) * pane.canvas.width >= 4 ? 0 : Math.max(0, tree.parent[frame]);
    this.selection = { pane: 'main', frame, box: -1 };
    this.draw();
    const box = this.selection.box;
    if (box >= 0) {
      pane.canvas.revealRow(tree.depth[frame]);
      this.draw();
      this.showDetails({ pane, frame, box: this.selection.box });
    }
  }

  private focusFunction(file: string, line: number, name?: string): void {
    const data = this.data;
    if (!data) return;
    if (this.state.view !== 'flamegraph') this.setView('flamegraph');
    const tree = this.currentTree();
    let best = -1;
    for (let i = 1; i < tree.count; i++) {
      const f = tree.func[i];
      const hit = data.file(f) === file && (line <= 0 || data.line(f) === line) && (name === undefined || data.name(f) === name);
      if (hit && (best < 0 || tree.totalUs[i] > tree.totalUs[best])) best = i;
    }
    if (best >= 0) this.revealFrame(best);
  }

  private openSource(func: number): void {
    const data = this.data!;
    const file = data.file(func);
    if (!file || !this.canOpenSource) return;
    this.host.post({ type: 'openSource', file, line: Math.max(1, data.line(func)), column: Math.max(1, data.column(func)) });
  }

  // ── test hooks (read-only views for the browser tests and the benchmark) ───────────────────────
  /** Drawn boxes of a pane with their function and page rectangle. */
  boxes(paneId: PaneId = 'main'): { name: string; file: string; line: number; frame: number; x: number; y: number; w: number; h: number; matched: boolean; bucket: number; marked: boolean; inlined: boolean }[] {
    const pane = this.panes.find((p) => p.id === paneId);
    if (!pane || !this.data) return [];
    const c = pane.canvas.contentValue!;
    const r = pane.canvas.canvas.getBoundingClientRect();
    // One pass over the drawn boxes (a flame chart draws tens of thousands).
    return pane.canvas.drawnRects().map((rect) => {
      const frame = c.boxes.frame[rect.box];
      const f = pane.tree.func[frame];
      return {
        name: this.data!.name(f), file: this.data!.file(f), line: this.data!.line(f), frame,
        x: r.left + rect.x, y: r.top + rect.y, w: rect.w, h: rect.h,
        matched: this.matches ? this.matches[f] === 1 : false,
        bucket: c.painter.bucketOf(frame),
        marked: rect.marked,
        inlined: rect.inlined,
      };
    });
  }

  /** The flame chart's lane bars as drawn (tests). */
  laneSpans(): { lane: number; index: number; x0: number; x1: number }[] {
    return this.lanes?.drawnSpans ?? [];
  }

  get viewState(): ViewState {
    return { ...this.state };
  }

  get zoomFrame(): number {
    return this.zoom;
  }

  /** A redraw is scheduled and not yet drawn: state read now (search matches, view) is ahead of the canvas. */
  get drawPending(): boolean {
    return this.pending !== null;
  }

  get drawCount(): number {
    return this.draws;
  }
}

/** The tooltip row of an inlined frame: where V8 charged its time (or bytes), and how Hotpath knows it is the callee's. */
function inlinedText(how: number, into: string, bytes: boolean): string {
  const caller = into ? `${into}'s frame` : 'its caller\'s frame';
  const why = bytes
    ? `${into ? `${into}'s` : 'the caller\'s'} own code allocates nothing, so they are this function's`
    : 'its lines are this function\'s code';
  const what = bytes ? 'these bytes' : 'this time';
  return how === 2
    ? `Inlined (inferred): V8 charged ${what} to ${caller}; ${why} (V8 did not report this inlining: the caller's source calls it).`
    : `Inlined by V8 into ${into || 'its caller'}: V8 charged ${what} to ${caller}; ${why}.`;
}
