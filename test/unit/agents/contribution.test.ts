/** One schema per tool feeds every surface: package.json's languageModelTools are the registry's. */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { languageModelToolsContribution } from '../../../src/core/agents/contribution';
import { TOOLS } from '../../../src/core/agents/tools';

const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8'));

describe('agents: the tool contributions', () => {
  it('package.json contributes.languageModelTools equals the registry (run `npm run lm-tools` after changing it)', () => {
    assert.deepEqual(pkg.contributes.languageModelTools, languageModelToolsContribution(TOOLS));
  });

  it('the issue\'s tool names, valid for VS Code (no copilot_/vscode_ prefix, a #reference name)', () => {
    assert.deepEqual(TOOLS.map((t) => t.name), ['hotpath_profile', 'hotpath_status', 'hotpath_hot_lines', 'hotpath_explain', 'hotpath_baseline', 'hotpath_verify', 'hotpath_compare', 'hotpath_leak', 'hotpath_startup', 'hotpath_bench', 'hotpath_report']);
    for (const t of pkg.contributes.languageModelTools) {
      assert.match(t.name, /^(?!copilot_|vscode_)[\w-]+$/);
      assert.match(t.toolReferenceName, /^[\w-]+$/);
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.inputSchema.additionalProperties, false, `${t.name} refuses unknown arguments`);
    }
  });

  it('the MCP server is offered to VS Code, on a VS Code that has the API', () => {
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: 'hotpath.mcp', label: 'Hotpath' }]);
    const [major, minor] = pkg.engines.vscode.replace(/^\^/, '').split('.').map(Number);
    assert.ok(major === 1 && minor >= 101 && minor <= 139, `engines.vscode ${pkg.engines.vscode}: McpStdioServerDefinition is in 1.101, the e2e VS Code is 1.139`);
    assert.equal(pkg.devDependencies['@types/vscode'].replace(/^\^/, ''), pkg.engines.vscode.replace(/^\^/, '').replace(/\.0$/, '.0'));
  });
});
