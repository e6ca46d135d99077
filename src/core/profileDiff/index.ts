/** What changed between two profiles of the same program: per function, matched across runtimes and revisions. */
export * from './identity';
export * from './functions';
export * from './lines';
