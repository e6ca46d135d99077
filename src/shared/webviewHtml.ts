/**
 * The flamegraph page, from one helper for both hosts: the VS Code webview panel (script and style
 * by webview URI, `cspSource` allowed) and the standalone report (everything inline, data embedded).
 * Strict CSP: nothing runs or loads without the nonce; no remote resources; the embedded data sits in
 * non-executable script blocks (JSON with <, >, & escaped; base64), read by the bundle as text.
 */

export interface FlameHtmlOptions {
  /** Fresh per page: 128 bits or more of randomness, base64. */
  nonce: string;
  /** `webview.cspSource` in VS Code; omit for the standalone report. */
  cspSource?: string;
  /** The page title (profile-controlled: escaped here). */
  title: string;
  script: { src: string } | { inline: string };
  style: { href: string } | { inline: string };
  /** Standalone report: the encoded payload (header JSON text, binary as base64). */
  embedded?: { headerJson: string; base64: string };
  /** Extra class on <body> (e.g. a forced theme for screenshots). */
  bodyClass?: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON safe inside a <script> element: no `</script>`, no `<!--`, no line separators. */
export function scriptSafeJson(json: string): string {
  return json.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JS or CSS text safe inside <script>/<style>: break any closing tag or comment opener. */
function inlineSafe(code: string, tag: 'script' | 'style'): string {
  return code.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1').replace(/<!--/g, '<\\!--');
}

export function contentSecurityPolicy(nonce: string, cspSource?: string): string {
  const src = cspSource ? ` ${cspSource}` : '';
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src${src} 'nonce-${nonce}'`,
    `img-src${src} data:`,
    `font-src${src || " 'none'"}`,
    "connect-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "object-src 'none'",
  ].join('; ');
}

export function flameHtml(o: FlameHtmlOptions): string {
  if (!/^[A-Za-z0-9+/=_-]{16,}$/.test(o.nonce)) throw new Error('flameHtml: the nonce must be 16+ base64 characters');
  const nonce = escapeHtml(o.nonce);
  const style = 'href' in o.style
    ? `<link rel="stylesheet" nonce="${nonce}" href="${escapeHtml(o.style.href)}">`
    : `<style nonce="${nonce}">${inlineSafe(o.style.inline, 'style')}</style>`;
  const script = 'src' in o.script
    ? `<script nonce="${nonce}" src="${escapeHtml(o.script.src)}"></script>`
    : `<script nonce="${nonce}">${inlineSafe(o.script.inline, 'script')}</script>`;
  const data = o.embedded
    ? `<script type="application/json" id="hotpath-header">${scriptSafeJson(o.embedded.headerJson)}</script>\n` +
      `<script type="application/octet-stream" id="hotpath-data">${o.embedded.base64.replace(/[^A-Za-z0-9+/=]/g, '')}</script>\n`
    : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(contentSecurityPolicy(o.nonce, o.cspSource))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(o.title)}</title>
${style}
</head>
<body${o.bodyClass ? ` class="${escapeHtml(o.bodyClass)}"` : ''}>
<div id="hotpath-root"></div>
${data}${script}
</body>
</html>
`;
}
