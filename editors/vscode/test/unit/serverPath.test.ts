import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import { resolveServerPath } from '../../src/serverPath';

function isExecutable(p: string): boolean {
  try {
    return fs.statSync(p).isFile() && (fs.accessSync(p, fs.constants.X_OK), true);
  } catch {
    return false;
  }
}

// A real directory tree: an extension with and without a bundled binary,
// a PATH with a non-executable file ahead of the real one.
function tree() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agentls-path-'));
  const mk = (rel: string, mode: number) => {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, '#!/bin/sh\n');
    fs.chmodSync(p, mode);
    return p;
  };
  return {
    dir,
    bundled: mk('ext-with/bin/agentls', 0o755),
    extWithout: path.join(dir, 'ext-without'),
    notExec: mk('path1/agentls', 0o644),
    onPath: mk('path2/agentls', 0o755),
    inWs: mk('ws/tools/agentls', 0o755),
    inHome: mk('home/go/bin/agentls', 0o755),
  };
}

test('resolveServerPath', async (t) => {
  const d = tree();
  t.after(() => fs.rmSync(d.dir, { recursive: true, force: true }));
  const base = {
    extensionPath: path.join(d.dir, 'ext-with'),
    workspaceFolder: path.join(d.dir, 'ws'),
    env: { PATH: `${path.join(d.dir, 'path1')}:${path.join(d.dir, 'path2')}` },
    platform: 'linux',
    home: path.join(d.dir, 'home'),
  };
  const cases = [
    { name: 'absolute setting', l: { ...base, setting: d.onPath }, path: d.onPath, source: 'setting' },
    { name: '~ in the setting', l: { ...base, setting: '~/go/bin/agentls' }, path: d.inHome, source: 'setting' },
    { name: '${workspaceFolder} in the setting', l: { ...base, setting: '${workspaceFolder}/tools/agentls' }, path: d.inWs, source: 'setting' },
    { name: 'relative setting is relative to the workspace', l: { ...base, setting: 'tools/agentls' }, path: d.inWs, source: 'setting' },
    { name: 'blank setting is unset: bundled binary first', l: { ...base, setting: '  ' }, path: d.bundled, source: 'bundled' },
    { name: 'no bundled binary: PATH, skipping a non-executable file', l: { ...base, extensionPath: d.extWithout }, path: d.onPath, source: 'PATH' },
    { name: 'a setting that points nowhere is an error, not a fallback', l: { ...base, setting: '/nonexistent/agentls' }, path: undefined, source: undefined },
    { name: 'nothing anywhere', l: { ...base, extensionPath: d.extWithout, env: { PATH: path.join(d.dir, 'path1') } }, path: undefined, source: undefined },
  ];
  for (const c of cases) {
    await t.test(c.name, () => {
      const got = resolveServerPath(c.l, isExecutable);
      assert.equal(got.path, c.path, JSON.stringify(got));
      if (got.path !== undefined) assert.equal(got.source, c.source);
      else assert.match(got.reason, /agentls/);
      assert.ok(got.tried.length > 0);
    });
  }
});

test('windows names and separators', () => {
  const got = resolveServerPath(
    { extensionPath: 'C:\\ext', env: { Path: 'C:\\a;C:\\tools' }, platform: 'win32', home: 'C:\\Users\\u' },
    (p) => p === 'C:\\tools\\agentls.exe',
  );
  assert.equal(got.path, 'C:\\tools\\agentls.exe');
  assert.deepEqual(got.tried, ['C:\\ext\\bin\\agentls.exe', 'C:\\a\\agentls.exe', 'C:\\tools\\agentls.exe']);
});
