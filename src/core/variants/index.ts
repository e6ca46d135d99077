/** The two sides of a comparison: a git revision in a worktree (with its dependencies), a Node runtime, env and node flags. */
export * from './sides';
export { checkoutRevision, inWorktree, resolveCommit, type Worktree } from './worktree';
export { planDependencies, provideDependencies, type DependencyPlan } from './dependencies';
export { recentCommits, repositoryRoot, workingTreeState, type CommitInfo } from './git';
