import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';

const root = path.resolve(__dirname, '..', '..', '..');

test('package.json is ready for Open VSX: publisher, icon, license, repository', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  assert.equal(pkg.publisher, 'agentls');
  assert.equal(pkg.private, undefined, 'a private package cannot be published');
  assert.ok(pkg.license, 'no license');
  assert.ok(fs.existsSync(path.join(root, 'LICENSE')), 'no LICENSE file');
  assert.ok(pkg.icon && fs.readFileSync(path.join(root, pkg.icon)).subarray(1, 4).toString() === 'PNG', 'icon is not a PNG');
  assert.match(pkg.repository?.url ?? '', /^https:\/\/github\.com\//);
  const cmds = pkg.contributes.commands.map((c: { command: string }) => c.command);
  for (const c of ['agentls.runTaskReview', 'agentls.continueTask', 'agentls.showConversation', 'agentls.history', 'agentls.pickModel', 'agentls.reviewDiff', 'agentls.runProjectCommand', 'agentls.showTaskDiff']) {
    assert.ok(cmds.includes(c), `${c} is not contributed`);
  }
});
