// Turning VS Code settings into the agentls settings object the server reads
// (initializationOptions and workspace/didChangeConfiguration, under
// "agentls"). No vscode import: the unit tests run this in plain node.

/** Settings that configure this extension, not the server: never sent. */
const CLIENT_ONLY = ['server.', 'trace.', 'review.openDiff'];

/** What WorkspaceConfiguration.inspect returns, reduced to what we read. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/**
 * The server's keys ("llm.model", "mcpServers") among the properties the
 * extension contributes in package.json ("agentls.llm.model", …). package.json
 * is the one list, so the settings UI and what is sent cannot drift apart.
 */
export function serverKeys(properties: Record<string, unknown>): string[] {
  return Object.keys(properties)
    .filter((k) => k.startsWith('agentls.'))
    .map((k) => k.slice('agentls.'.length))
    .filter((k) => !CLIENT_ONLY.some((p) => k.startsWith(p)))
    .sort();
}

/**
 * The key under which workspace-scope values travel to the server. VS Code's
 * workspace and folder settings live in files of the workspace
 * (.vscode/settings.json, *.code-workspace), which the model can write: the
 * server applies them above the user's settings, as VS Code does, but what
 * widens power (tools.allow, sandbox.*, verify.commands, mcpServers,
 * llm.baseURL, tools.deny, …) only once the user trusts them, like
 * .agentls.json. agent.backend it never takes from there.
 */
export const WORKSPACE_SCOPE = 'workspaceSettings';

/**
 * The settings the user actually set, nested by their dotted keys: the
 * user's own (global) values at the top, and the values set in the workspace
 * or a folder, the most specific first, under WORKSPACE_SCOPE. Defaults are
 * left out on purpose: the server ranks editor settings above .agentls.json
 * and the environment, so sending a default would silently override
 * AGENTLS_BASE_URL or a workspace file. null counts as unset.
 */
export function explicitSettings(
  keys: readonly string[],
  inspect: (key: string) => Inspected | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const scoped: Record<string, unknown> = {};
  for (const key of keys) {
    const i = inspect(key);
    if (!i) continue;
    const path = key.split('.');
    if (set(i.globalValue)) setPath(out, path, i.globalValue);
    const w = [i.workspaceFolderValue, i.workspaceValue].find(set);
    if (w !== undefined) setPath(scoped, path, w);
  }
  if (Object.keys(scoped).length > 0) out[WORKSPACE_SCOPE] = scoped;
  return out;
}

function set(v: unknown): boolean {
  return v !== undefined && v !== null;
}

function setPath(obj: Record<string, unknown>, path: string[], v: unknown): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    const next = cur[p];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      cur[p] = {};
    }
    cur = cur[p] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = v;
}

/**
 * Where a plain-text API key sits in settings, if anywhere. The extension
 * never sends it and tells the user to move it to secret storage or the
 * environment; the answer names scopes, never the value.
 */
export function plainTextKeyScopes(i: Inspected | undefined): string[] {
  if (!i) return [];
  const scopes: string[] = [];
  if (nonEmpty(i.globalValue)) scopes.push('user settings');
  if (nonEmpty(i.workspaceValue)) scopes.push('workspace settings');
  if (nonEmpty(i.workspaceFolderValue)) scopes.push('folder settings');
  return scopes;
}

function nonEmpty(v: unknown): boolean {
  return v !== undefined && v !== null && v !== '';
}
