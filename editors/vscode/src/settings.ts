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
 * The settings the user actually set, nested by their dotted keys. Defaults
 * are left out on purpose: the server ranks editor settings above
 * .agentls.json and the environment, so sending a default would silently
 * override AGENTLS_BASE_URL or a workspace file. The most specific scope wins
 * (folder, then workspace, then user); null counts as unset.
 */
export function explicitSettings(
  keys: readonly string[],
  inspect: (key: string) => Inspected | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const i = inspect(key);
    if (!i) continue;
    const v = [i.workspaceFolderValue, i.workspaceValue, i.globalValue].find((x) => x !== undefined && x !== null);
    if (v === undefined) continue;
    setPath(out, key.split('.'), v);
  }
  return out;
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
