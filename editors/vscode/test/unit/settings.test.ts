import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

import { Inspected, explicitSettings, plainTextKeyScopes, serverKeys } from '../../src/settings';

// Compiled to out/test/unit, so the folder is three levels up.
const root = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const props: Record<string, unknown> = pkg.contributes.configuration.properties;

/** Keys of the settings reference generated from the server's code: `llm.model` etc. */
function readmeKeys(): string[] {
  const page = fs.readFileSync(path.join(root, '..', '..', 'docs', 'reference', 'settings.md'), 'utf8');
  const keys = new Set<string>();
  for (const line of page.split('\n')) {
    const m = /^\| \[`([A-Za-z.]+)`\]/.exec(line);
    if (m) keys.add(m[1]);
  }
  return [...keys].sort();
}

test('package.json contributes every server setting of docs/reference/settings.md, and no other', () => {
  const want = readmeKeys().filter((k) => k !== 'llm.apiKey');
  assert.ok(want.length >= 20, `docs/reference/settings.md parsed to only ${want.length} keys: ${want}`);
  assert.deepEqual(serverKeys(props), want);
});

test('the API key is never a contributed setting', () => {
  assert.ok(!('agentls.llm.apiKey' in props));
});

test('client-only settings are not sent to the server', () => {
  const keys = serverKeys({ 'agentls.server.path': {}, 'agentls.trace.server': {}, 'agentls.llm.model': {}, 'other.x': {} });
  assert.deepEqual(keys, ['llm.model']);
});

test('explicitSettings', async (t) => {
  const cases: { name: string; values: Record<string, Inspected>; want: Record<string, unknown> }[] = [
    { name: 'nothing set sends nothing (defaults would override env and .agentls.json)', values: {}, want: {} },
    {
      name: 'user settings nest by their dots',
      values: { 'llm.model': { globalValue: 'm' }, 'llm.baseURL': { globalValue: 'http://x/v1' }, 'agent.maxSteps': { globalValue: 3 } },
      want: { llm: { model: 'm', baseURL: 'http://x/v1' }, agent: { maxSteps: 3 } },
    },
    {
      name: 'workspace and folder values travel apart from the user\'s; folder beats workspace',
      values: {
        'llm.model': { globalValue: 'g', workspaceValue: 'w', workspaceFolderValue: 'f' },
        'agent.review': { globalValue: true, workspaceValue: false },
      },
      want: { llm: { model: 'g' }, agent: { review: true }, workspaceSettings: { llm: { model: 'f' }, agent: { review: false } } },
    },
    {
      name: 'a workspace file widening power is never sent as the user\'s own',
      values: {
        'tools.allow': { workspaceValue: ['*'] },
        'sandbox.mode': { workspaceFolderValue: 'off' },
        'llm.baseURL': { globalValue: 'http://mine/v1', workspaceValue: 'http://theirs/v1' },
      },
      want: {
        llm: { baseURL: 'http://mine/v1' },
        workspaceSettings: { tools: { allow: ['*'] }, sandbox: { mode: 'off' }, llm: { baseURL: 'http://theirs/v1' } },
      },
    },
    {
      name: 'false, 0 and empty lists are set values; null is not',
      values: { 'verify.enabled': { globalValue: false }, 'agent.taskTimeoutSeconds': { workspaceValue: 0 }, 'tools.allow': { globalValue: [] }, 'llm.model': { globalValue: null } },
      want: { verify: { enabled: false }, tools: { allow: [] }, workspaceSettings: { agent: { taskTimeoutSeconds: 0 } } },
    },
    {
      name: 'object settings stay whole',
      values: {
        mcpServers: { globalValue: { fs: { command: 'mcp-fs', args: ['--root', '.'] } } },
        'llm.prices': { globalValue: { '*': { input: 1, output: 2 } } },
      },
      want: { mcpServers: { fs: { command: 'mcp-fs', args: ['--root', '.'] } }, llm: { prices: { '*': { input: 1, output: 2 } } } },
    },
  ];
  const keys = serverKeys(props);
  for (const c of cases) {
    await t.test(c.name, () => {
      for (const k of Object.keys(c.values)) assert.ok(keys.includes(k), `test uses unknown key ${k}`);
      assert.deepEqual(explicitSettings(keys, (k) => c.values[k]), c.want);
    });
  }
});

test('settings that widen power or start programs are machine scope or restricted under workspace trust', () => {
  for (const k of ['agentls.server.path', 'agentls.server.args', 'agentls.agent.backend']) {
    assert.equal((props[k] as { scope?: string }).scope, 'machine', `${k} is not machine scope`);
  }
  const restricted: string[] = pkg.capabilities?.untrustedWorkspaces?.restrictedConfigurations ?? [];
  assert.equal(pkg.capabilities?.untrustedWorkspaces?.supported, 'limited');
  const widening = serverKeys(props).filter((k) =>
    k.startsWith('tools.') || k.startsWith('sandbox.') || ['verify.commands', 'mcpServers', 'llm.baseURL'].includes(k));
  assert.ok(widening.length >= 8, `found only ${widening}`);
  for (const k of widening) assert.ok(restricted.includes('agentls.' + k), `agentls.${k} is not restricted in untrusted workspaces`);
  for (const k of restricted) assert.ok(k in props, `restricted ${k} is not a contributed setting`);
});

test('plainTextKeyScopes names where a key sits, never what it is', () => {
  assert.deepEqual(plainTextKeyScopes(undefined), []);
  assert.deepEqual(plainTextKeyScopes({ globalValue: '' }), []);
  const scopes = plainTextKeyScopes({ globalValue: 'sk-secret', workspaceFolderValue: 'sk-2' });
  assert.deepEqual(scopes, ['user settings', 'folder settings']);
  assert.ok(!JSON.stringify(scopes).includes('sk-'));
});
