/**
 * What an app says about its own URLs while it starts: `listening on http://127.0.0.1:3006/api/stores`,
 * NestJS's `Mapped {/api/stores, GET} route`. Read from its stdout/stderr as they arrive, bounded (the
 * first lines only: startup is where apps announce themselves), so the load can be offered those paths.
 */

export interface AnnouncedUrl {
  /** The port in the URL (80/443 when it names none). */
  port: number;
  /** Path and query, e.g. `/api/stores?limit=10`; `/` when the URL has none. */
  path: string;
}

export interface MappedRoute {
  method: string;
  path: string;
}

const MAX_LINES = 2000;
const MAX_LINE = 2000;
const MAX_ITEMS = 100;

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)/g;
const URL = /\bhttps?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::(\d{1,5}))?(\/[^\s"'`<>)\]}|]*)?/g;
const NEST_MAPPED = /\bMapped \{([^,{}\s]+), ([A-Z]+)\} route\b/;

/** The URLs and mapped routes in one line of output (pure; exported for tests). */
export function scanLine(raw: string): { urls: AnnouncedUrl[]; mapped?: MappedRoute } {
  const line = raw.slice(0, MAX_LINE).replace(ANSI, '');
  const urls: AnnouncedUrl[] = [];
  for (const m of line.matchAll(URL)) {
    const https = m[0].startsWith('https');
    const port = m[2] !== undefined ? Number(m[2]) : https ? 443 : 80;
    if (!(port > 0 && port < 65536)) continue;
    // Sentence punctuation after a URL is not part of it ("… at http://x:3000/api.").
    const path = (m[3] ?? '/').replace(/[.,;:!?]+$/, '') || '/';
    urls.push({ port, path });
  }
  const mapped = NEST_MAPPED.exec(line);
  return mapped ? { urls, mapped: { method: mapped[2], path: mapped[1] } } : { urls };
}

/** Collects announcements from the app's output chunks as they arrive. */
export class StartupAnnouncements {
  readonly urls: AnnouncedUrl[] = [];
  readonly mapped: MappedRoute[] = [];
  private partial = '';
  private lines = 0;
  private waiters: Array<() => void> = [];

  push(chunk: string): void {
    if (this.lines >= MAX_LINES) return;
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = (parts.pop() ?? '').slice(0, MAX_LINE);
    for (const line of parts) {
      if (++this.lines > MAX_LINES) break;
      const found = scanLine(line);
      for (const u of found.urls) {
        if (this.urls.length < MAX_ITEMS && !this.urls.some((x) => x.port === u.port && x.path === u.path)) this.urls.push(u);
      }
      if (found.mapped && this.mapped.length < MAX_ITEMS && !this.mapped.some((x) => x.method === found.mapped!.method && x.path === found.mapped!.path)) this.mapped.push(found.mapped);
      if (found.urls.length) this.wake();
    }
  }

  /** URLs on `port` (what the app said about the port Hotpath loads). */
  on(port: number): AnnouncedUrl[] {
    return this.urls.filter((u) => u.port === port);
  }

  /**
   * Waits (at most `ms`) until the app has printed a URL on `port`. Apps print their URL in the listen
   * callback, which runs as the preload reports the port: the line may still be in the pipe.
   */
  async settle(port: number, ms: number): Promise<void> {
    if (this.on(port).length) return;
    await new Promise<void>((resolve) => {
      const finish = () => { clearTimeout(timer); this.waiters = this.waiters.filter((w) => w !== check); resolve(); };
      const check = () => { if (this.on(port).length) finish(); };
      const timer = setTimeout(finish, ms);
      this.waiters.push(check);
    });
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
