/**
 * The `contributes.languageModelTools` entries package.json must carry for the registry's tools: a
 * test fails when package.json and the registry drift apart (regenerate with `npm run lm-tools`).
 */
import type { ToolDefinition } from './tools';

export function languageModelToolsContribution(tools: readonly ToolDefinition[]) {
  return tools.map((t) => ({
    name: t.name,
    displayName: t.title,
    toolReferenceName: t.name.replace(/^hotpath_/, 'hotpath-').replace(/_/g, '-'),
    canBeReferencedInPrompt: true,
    icon: t.startsProcesses ? '$(flame)' : '$(search)',
    tags: ['hotpath', 'performance', 'node', ...(t.startsProcesses ? ['runs-code'] : ['read-only'])],
    userDescription: t.userDescription,
    modelDescription: t.description,
    inputSchema: t.inputSchema,
  }));
}
