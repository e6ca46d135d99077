/**
 * The rows of "which request should the load send?" (no vscode import; unit-tested in plain Node):
 * the paths the app printed and the routes it registered, best first, then `/` and "Enter a path…".
 * Paths come from the app (its output, its route table): every row is made a safe label.
 */
import type { RouteCandidate } from '../../core/routes/candidates';
import type { RequestOffer, RouteMiss } from '../../core/workflow/requestPath';
import { formatInt, labelText } from '../../shared/text';

export interface RequestItem {
  label: string;
  description?: string;
  /** Loaded as is when picked. */
  choice?: { path: string; method: string };
  /** Opens the path input with this text (a route with parameters to fill in, or a free path). */
  edit?: { value: string; method: string; selection?: [number, number] };
}

const SOURCE_TEXT = { 'last-used': 'used last time', announced: 'printed by the app at startup', registered: 'registered route' } as const;

function sourcesText(c: RouteCandidate, framework: string | undefined): string {
  return c.sources.map((s) => (s === 'registered' && framework ? `${frameworkName(framework)} route` : SOURCE_TEXT[s])).join(' · ');
}

function frameworkName(framework: string): string {
  return framework === 'express' ? 'Express' : framework === 'fastify' ? 'Fastify' : framework;
}

/** The first `:param`, `*` or `{…}` of a path: what the user has to replace. */
export function firstParameter(path: string): [number, number] | undefined {
  const m = /:[A-Za-z0-9_$]+\??|\*[A-Za-z0-9_$]*|\{[^}]*\}|\(\.\*\)/.exec(path);
  return m ? [m.index, m.index + m[0].length] : undefined;
}

export function requestItems(offer: RequestOffer, miss?: RouteMiss): RequestItem[] {
  const items: RequestItem[] = [];
  const framework = offer.routeTable?.framework;
  const failed = (c: { method: string; path: string }) => miss !== undefined && c.method === miss.method && c.path === miss.path;
  for (const c of offer.candidates) {
    if (failed(c)) continue;
    const description = labelText(`${sourcesText(c, framework)}${c.needsValue ? ' · fill in the parameter' : ''}`);
    const label = labelText(`${c.method} ${c.path}`);
    if (c.needsValue) {
      const selection = firstParameter(c.path);
      items.push({ label, description, edit: { value: c.path, method: c.method, ...(selection ? { selection } : {}) } });
    } else {
      items.push({ label, description, choice: { path: c.path, method: c.method } });
    }
  }
  if (!offer.candidates.some((c) => c.method === 'GET' && c.path === '/') && !(miss && miss.path === '/' && miss.method === 'GET')) {
    items.push({ label: 'GET /', description: offer.candidates.length ? 'the root (not among the paths the app told)' : 'the root: the app printed no URL and no route table was found', choice: { path: '/', method: 'GET' } });
  }
  items.push({ label: '$(edit) Enter a path…', description: 'any path and query, e.g. /api/items?limit=10', edit: { value: '/', method: miss?.method ?? 'GET' } });
  return items;
}

/** The picker's title and placeholder. */
export function requestPrompt(offer: RequestOffer, miss?: RouteMiss): { title: string; placeHolder: string } {
  // Placeholders stay short: the quick input is about 600 px wide at any window size.
  if (miss) {
    return {
      title: labelText(`Hotpath: every warm-up request to ${miss.method} ${miss.path} got ${miss.status} — load another path?`),
      placeHolder: `All ${formatInt(miss.responses)} answers were ${miss.status}. Pick a path the app serves (Esc stops)`,
    };
  }
  const table = offer.routeTable;
  const told = offer.candidates.length ? '' : table ? ' · it printed no URL' : ' · no URL printed, no routes found';
  return { title: 'Hotpath: which request should the load send?', placeHolder: `The app listens on port ${offer.port}${told} · remembered for next runs` };
}
