/** Node.js runtimes for comparisons: the versions on this machine, and official ones installed on demand. */
export * from './types';
export * from './version';
export { cacheRoot, nodePackageName } from './cache';
export { discoverRuntimes, defaultDiscoverDeps, type DiscoverDeps } from './discover';
export { installNode, resolveRemoteVersion, defaultRegistry, type InstallDeps, type InstallProgress } from './install';
export { resolveRuntime, type ResolveRuntimeOptions } from './resolve';
