// A test hook: when AGENTLS_VSCODE_TEST_RESULTS names a file, the extension
// appends one JSON line per thing a test wants to know (events, command
// results, documents, diagnostics). Unset, it costs nothing. It never
// receives the API key: nothing secret is passed to it.
import * as fs from 'fs';

export class Probe {
  private constructor(
    private readonly file: string | undefined,
    private readonly folder: string,
  ) {}

  static fromEnv(env: Record<string, string | undefined>, folder: string): Probe {
    const f = env.AGENTLS_VSCODE_TEST_RESULTS;
    return new Probe(f && f !== '' ? f : undefined, folder);
  }

  get enabled(): boolean {
    return this.file !== undefined;
  }

  write(kind: string, data: Record<string, unknown> = {}): void {
    if (!this.file) return;
    const line = JSON.stringify({ time: Date.now(), folder: this.folder, kind, ...data });
    try {
      fs.appendFileSync(this.file, line + '\n');
    } catch {
      // A test hook must never break the extension.
    }
  }
}
