/** Labels and hovers of allocation, retained and blocked lines (no vscode import; unit-tested in plain Node). */
import type { AllocationAnnotation, BlockedAnnotation } from '../../core/annotate';
import { formatBytes, formatInt, formatMs, formatPct, mdCode, mdEscape } from '../../shared/text';

const amount = (a: Pick<AllocationAnnotation, 'bytes' | 'bytesPerRequest'>) => (a.bytesPerRequest !== null ? `${formatBytes(a.bytesPerRequest)}/req` : formatBytes(a.bytes));

/** After-line label: `allocates 19.5 KB/req`, `calls allocate 1.9 KB/req`, `retains 310 B/req`. */
export function allocationLabel(a: AllocationAnnotation): string {
  if (a.kind === 'retained') return `retains ${amount(a)}`;
  if (a.kind === 'call') return `calls allocate ${amount(a)}`;
  if (a.inlining?.ranInlinedInto?.length) return `allocates ${amount(a)} (inlined)`;
  if (a.inlining?.notPlaced) {
    const inlined = a.inlining.includes ?? [];
    return `allocates ${amount(a)} with inlined ${inlined.slice(0, 2).map((c) => c.function).join(', ')}${inlined.length > 2 ? ` +${inlined.length - 2}` : ''}`;
  }
  return `allocates ${amount(a)}`;
}

/** After-line label of a line that held the event loop: `blocked the loop: 69 turns, up to 201 ms`. */
export function blockedLabel(b: BlockedAnnotation): string {
  const longest = b.episodeMs[0];
  return `blocked the loop: ${formatInt(b.episodes)} turn${b.episodes === 1 ? '' : 's'}${longest !== undefined ? `, up to ${formatMs(longest)}` : ''}`;
}

/** Hover of an allocation or retained line. Every name is escaped: it comes from the profiled program. */
export function allocationHover(a: AllocationAnnotation, profileName: string): string {
  const share = `${formatPct(a.pct)} of the sampled bytes`;
  const per = a.bytesPerRequest !== null ? `**${formatBytes(a.bytesPerRequest)} per request**` : `**${formatBytes(a.bytes)}**`;
  if (a.kind === 'retained') {
    return `**Retained after full GC**: ${per} (${formatBytes(a.bytes)} sampled, ${share}) — objects allocated ${a.function ? `by ${mdCode(a.function)} ` : ''}during the leak check that were still alive after the last forced garbage collection.` +
      `\n\n**Usual fixes**: bound caches (an LRU with a maximum size or a TTL), do not keep per-request data in module-level arrays or maps, remove listeners and timers added per request.\n\n_Leak check: ${mdEscape(profileName)}_`;
  }
  if (a.kind === 'call') {
    const calls = a.calls.length ? `\n\n${a.calls.map((c) => `- → ${mdCode(c.function)}${c.where ? ` (${mdEscape(c.where)})` : ''} ${formatBytes(c.bytes)}`).join('\n')}` : '';
    return `**Calls here allocate** ${per} (${share}) in Node, dependency or builtin code called from ${mdCode(a.function)}:${calls}\n\n_Allocation profile: ${mdEscape(profileName)}_`;
  }
  return `**${mdCode(a.function)} allocates** ${per} (${formatBytes(a.bytes)} sampled, ${share}, objects the GC already freed included).` +
    `\n\nV8's sampling heap profiler records the allocating function, not the line inside it: these are the objects, arrays, strings and closures this function creates itself (and code V8 inlined into it).` +
    inliningMarkdown(a) +
    `\n\n**Usual fixes**: reuse buffers and objects across requests, hoist constant objects, closures and regular expressions out of the function, avoid intermediate arrays (map/filter chains).\n\n_Allocation profile: ${mdEscape(profileName)}_`;
}

/** Where an allocation site's bytes ran inlined, or what ran inlined in it and why its bytes are not placed. */
function inliningMarkdown(a: AllocationAnnotation): string {
  const i = a.inlining;
  if (!i) return '';
  const into = (i.ranInlinedInto ?? []).map((x) => `\n- in ${mdCode(x.function)}: ${formatBytes(x.bytes)} sampled${x.placement === 'inferred' ? ' (inlining inferred from the source; V8 did not report it)' : ''}`).join('');
  const placed = into ? `\n\n**Ran inlined**: V8 charged some of these bytes to the frames ${mdCode(a.function)} was inlined into; their own code allocates nothing, so the bytes are ${mdCode(a.function)}'s:${into}` : '';
  const notPlaced = i.notPlaced ? `\n\n**Includes inlined code**: ${(i.includes ?? []).map((c) => mdCode(c.function)).join(', ')}. Not placed on one function: ${mdEscape(i.notPlaced)}.` : '';
  return placed + notPlaced;
}

/** Hover of a line that held the event loop: the episodes' lengths and what to do. */
export function blockedHover(b: BlockedAnnotation, profileName: string): string {
  const lengths = b.episodeMs.slice(0, 12).map((m) => formatMs(m)).join(', ');
  const mid = b.episodeMs.length ? b.medianEpisodeMs : undefined;
  return `**Blocked the event loop**: ${formatMs(b.blockedMs)} of CPU here during ${formatInt(b.episodes)} turn${b.episodes === 1 ? '' : 's'} of the loop of ${formatMs(b.thresholdMs)} or more` +
    `${mid !== undefined ? ` (median ${formatMs(mid)}, longest ${formatMs(b.episodeMs[0])})` : ''}.` +
    (lengths ? `\n\n**Episodes**: ${lengths}${b.episodeMs.length > 12 ? ', …' : ''}` : '') +
    `\n\nWhile ${mdCode(b.function)} runs this synchronously, every other request waits: the other routes' p99 latency shows it.` +
    `\n\n**Usual fixes**: the async form of the API (e.g. ${mdCode('crypto.pbkdf2')} instead of ${mdCode('pbkdf2Sync')}, ${mdCode('fs.promises')}), split the work into chunks with ${mdCode('setImmediate')}, or move it to a worker thread.\n\n_Profile: ${mdEscape(profileName)}_`;
}
