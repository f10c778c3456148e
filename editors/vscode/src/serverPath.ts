// Finding the agentls binary: the agentls.server.path setting, then a binary
// bundled in the extension (bin/), then PATH. No vscode import.
import * as path from 'path';

export interface Lookup {
  /** agentls.server.path; empty or undefined: not set. */
  setting?: string;
  extensionPath: string;
  /** The first workspace folder, for relative settings and ${workspaceFolder}. */
  workspaceFolder?: string;
  env: Record<string, string | undefined>;
  platform: string;
  home: string;
}

export type Found =
  | { path: string; source: 'setting' | 'bundled' | 'PATH'; tried: string[] }
  | { path: undefined; tried: string[]; reason: string };

/**
 * Resolves the server binary. A setting that points nowhere is an error, not
 * a reason to fall back: the user asked for that binary and should hear
 * that it is missing rather than silently get another one.
 */
export function resolveServerPath(l: Lookup, isExecutable: (p: string) => boolean): Found {
  const p = l.platform === 'win32' ? path.win32 : path.posix;
  const exe = l.platform === 'win32' ? 'agentls.exe' : 'agentls';
  const tried: string[] = [];
  const setting = (l.setting ?? '').trim();
  if (setting !== '') {
    let s = setting.replace(/\$\{workspaceFolder\}/g, l.workspaceFolder ?? '');
    if (s === '~' || s.startsWith('~/')) s = p.join(l.home, s.slice(1));
    if (!p.isAbsolute(s)) s = p.resolve(l.workspaceFolder ?? l.home, s);
    tried.push(s);
    if (isExecutable(s)) return { path: s, source: 'setting', tried };
    return { path: undefined, tried, reason: `agentls.server.path is set to ${setting}, but ${s} is not an executable file` };
  }
  const bundled = p.join(l.extensionPath, 'bin', exe);
  tried.push(bundled);
  if (isExecutable(bundled)) return { path: bundled, source: 'bundled', tried };
  const pathVar = l.env.PATH ?? l.env.Path ?? '';
  for (const dir of pathVar.split(l.platform === 'win32' ? ';' : ':')) {
    if (dir === '') continue;
    const c = p.join(dir, exe);
    tried.push(c);
    if (isExecutable(c)) return { path: c, source: 'PATH', tried };
  }
  return {
    path: undefined,
    tried,
    reason: 'no agentls binary found: install the .vsix for your platform from the releases (the server is inside), set agentls.server.path, or put agentls on PATH',
  };
}
