// Writes package.json's contributes.languageModelTools (and the MCP provider) from the tool registry
// (src/core/agents/tools.ts), so the schema VS Code validates with is the one `hotpath mcp` declares.
// test/unit/agents/contribution.test.ts fails until this has run after a change to the registry.
//
//   npm run lm-tools
import * as fs from 'node:fs';
import * as path from 'node:path';
import { languageModelToolsContribution } from '../src/core/agents/contribution';
import { TOOLS } from '../src/core/agents/tools';

const file = path.join(__dirname, '..', 'package.json');
const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
pkg.contributes.languageModelTools = languageModelToolsContribution(TOOLS);
pkg.contributes.mcpServerDefinitionProviders = [{ id: 'hotpath.mcp', label: 'Hotpath' }];
fs.writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
process.stderr.write(`package.json: ${TOOLS.length} language-model tools\n`);
