/**
 * Inside the real extension host (code-server's Node host, real `vscode` API): lazy activation,
 * the commands activation registers, and the contributions the extension promises (commands,
 * settings, the `hotpath` debug type, colours, views). Runs first (files run in name order), so the
 * extension is still inactive when it starts.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const EXTENSION_ID = 'hotpath.hotpath';
const COMMANDS: Record<string, string> = {
  'hotpath.profileWithLoad': 'Profile with Load',
  'hotpath.establishBaseline': 'Establish Baseline',
  'hotpath.verifyAgainstBaseline': 'Verify Against Baseline',
  'hotpath.profileScript': 'Profile Script (no HTTP)',
  'hotpath.attachAndProfile': 'Attach to Process and Profile',
  'hotpath.openProfile': 'Open CPU Profile…',
  'hotpath.showFlamegraph': 'Show Flamegraph',
  'hotpath.compareProfiles': 'Compare Profiles',
  'hotpath.clearAnnotations': 'Clear Annotations',
  'hotpath.compareWithGitRevision': 'Compare with Git Revision…',
  'hotpath.compareNodeVersions': 'Compare Node Versions…',
  'hotpath.profileStartup': 'Profile Startup',
  'hotpath.runBenchmark': 'Run Benchmark',
  'hotpath.createBenchmark': 'Create Benchmark for This Function',
};

/* eslint-disable @typescript-eslint/no-explicit-any */
function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is installed in the extension host`);
  return ext;
}

describe('hotpath extension: activation', () => {
  it('is not active before a Hotpath command runs (lazy activation)', () => {
    assert.equal(extension().isActive, false);
    const events = (extension().packageJSON.activationEvents ?? []) as string[];
    for (const eager of ['*', 'onStartupFinished']) assert.ok(!events.includes(eager), `activationEvents has no "${eager}": ${events.join(', ')}`);
  });

  it('activates on its first command and registers every contract command', async () => {
    const ext = extension();
    const t = performance.now();
    // A user's first command; onCommand activation runs activate() before the command itself.
    await vscode.commands.executeCommand('hotpath.clearAnnotations');
    const ms = performance.now() - t;
    assert.equal(ext.isActive, true);
    (globalThis as any).__hotpathHostMetrics.activateAndFirstCommandMs = Math.round(ms);
    console.log(`      activation + first command: ${ms.toFixed(0)} ms`);
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = Object.keys(COMMANDS).filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], 'all contract commands are registered');
  });
});

describe('hotpath extension: contributions', () => {
  const contributes = () => extension().packageJSON.contributes as any;

  it('commands: the contract titles under the Hotpath category', () => {
    const byId = new Map<string, any>((contributes().commands as any[]).map((c) => [c.command, c]));
    for (const [id, title] of Object.entries(COMMANDS)) {
      const c = byId.get(id);
      assert.ok(c, `command ${id} is contributed`);
      assert.equal(c.title, title, id);
      assert.equal(c.category, 'Hotpath', id);
    }
  });

  it('configuration: targets, load and baseline settings; the workspace target is read', () => {
    const config = contributes().configuration;
    const props = Object.assign({}, ...(Array.isArray(config) ? config : [config]).map((c: any) => c.properties)) as Record<string, any>;
    for (const key of ['hotpath.targets', 'hotpath.load.durationSeconds', 'hotpath.load.warmupSeconds', 'hotpath.load.connections', 'hotpath.baseline.runs']) {
      assert.ok(props[key], `setting ${key} is contributed`);
    }
    assert.equal(props['hotpath.targets'].type, 'array');
    const item = props['hotpath.targets'].items;
    for (const field of ['name', 'command', 'cwd', 'env', 'path', 'method']) assert.ok(item?.properties?.[field], `a target has "${field}"`);
    assert.equal(props['hotpath.baseline.runs'].minimum, 2);

    const settings = vscode.workspace.getConfiguration('hotpath', vscode.workspace.workspaceFolders?.[0]);
    const targets = settings.get<any[]>('targets');
    assert.equal(targets?.length, 1);
    assert.equal(targets?.[0].name, 'shop');
    assert.equal(settings.get('load.durationSeconds'), 3);
  });

  it('the "hotpath" debug type: launch attributes, initial configurations, snippets', () => {
    const dbg = (contributes().debuggers as any[] | undefined)?.find((d) => d.type === 'hotpath');
    assert.ok(dbg, 'debuggers contributes type "hotpath"');
    const launch = dbg.configurationAttributes?.launch?.properties ?? {};
    for (const attr of ['mode', 'command', 'program', 'args', 'cwd', 'env', 'load', 'baselineName']) assert.ok(launch[attr], `launch attribute "${attr}"`);
    for (const mode of ['profile', 'baseline', 'verify', 'script', 'compare']) assert.ok(launch.mode.enum?.includes(mode), `mode "${mode}"`);
    assert.ok(launch.compare?.properties?.base && launch.compare.properties.node, 'the compare attribute (base, node, …)');
    assert.ok(Array.isArray(dbg.initialConfigurations) && dbg.initialConfigurations.length > 0, 'initial configurations');
    for (const c of dbg.initialConfigurations) assert.equal(c.type, 'hotpath');
    assert.ok(Array.isArray(dbg.configurationSnippets) && dbg.configurationSnippets.length > 0, 'configuration snippets');
  });

  it('colours and the hotspots view', () => {
    const colors = contributes().colors as any[] | undefined;
    assert.ok(colors?.length, 'contributes.colors');
    for (const c of colors) {
      assert.match(c.id, /^hotpath\./);
      assert.ok(c.defaults?.dark && c.defaults?.light, `${c.id} has light and dark defaults`);
    }
    const views = Object.values(contributes().views ?? {}).flat() as any[];
    assert.ok(views.some((v) => v.id === 'hotpathHotspots'), `view hotpathHotspots among ${views.map((v) => v.id).join(', ')}`);
  });
});
