/**
 * Frame categories as small integers, so a function table can carry them in a Uint8Array. The order is
 * part of the payload format (FLAME_PAYLOAD_VERSION): append, never reorder.
 */
export const CATEGORIES = ['user', 'dependency', 'node', 'native', 'gc', 'idle', 'program', 'root'] as const;
export type CategoryName = (typeof CATEGORIES)[number];

export const CategoryCode: Readonly<Record<CategoryName, number>> = Object.freeze(
  Object.fromEntries(CATEGORIES.map((c, i) => [c, i])) as Record<CategoryName, number>,
);

export const CATEGORY_LABELS: Readonly<Record<CategoryName, string>> = {
  user: 'Your code',
  dependency: 'Dependency (node_modules)',
  node: 'Node.js internals',
  native: 'Native / V8 builtins',
  gc: 'Garbage collector',
  idle: 'Idle',
  program: 'Program (native, outside JS)',
  root: 'Root',
};

export function categoryName(code: number): CategoryName {
  return CATEGORIES[code] ?? 'native';
}
