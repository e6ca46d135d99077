/**
 * Node versions as people write them ("24", "v22.3", "22.23.3") and as binaries report them
 * ("v22.23.3"): parsing, ordering and matching a spec. Pure.
 */

export interface VersionSpec {
  /** The numbers given: [24], [22, 3] or [22, 23, 3]. */
  parts: number[];
  /** The text as the user wrote it, for messages. */
  text: string;
}

/** "24", "v24", "24.1", "v24.21.0" → a spec; undefined when the text is not a version (a path, say). */
export function parseVersionSpec(text: string): VersionSpec | undefined {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.trim());
  if (!m) return undefined;
  return { parts: [m[1], m[2], m[3]].filter((p): p is string => p !== undefined).map(Number), text: text.trim() };
}

/** "v22.23.3" or "22.23.3" → [22, 23, 3]; undefined for anything else (pre-releases included). */
export function parseVersion(text: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)$/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function compareVersions(a: string, b: string): number {
  const x = parseVersion(a) ?? [0, 0, 0];
  const y = parseVersion(b) ?? [0, 0, 0];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** Does an exact version ("22.23.3") satisfy the spec ("22", "22.23", "22.23.3")? */
export function matchesSpec(version: string, spec: VersionSpec): boolean {
  const v = parseVersion(version);
  return v !== undefined && spec.parts.every((p, i) => v[i] === p);
}

/** The highest of `versions` that satisfies the spec. */
export function bestMatch<T extends { version: string }>(candidates: readonly T[], spec: VersionSpec): T | undefined {
  return candidates.filter((c) => matchesSpec(c.version, spec)).sort((a, b) => compareVersions(b.version, a.version))[0];
}

/** "22.23.3" → "v22.23.3" (how process.version reads). */
export function withV(version: string): string {
  return version.startsWith('v') ? version : `v${version}`;
}
