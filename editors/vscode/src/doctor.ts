// `agentls doctor --json` for the "agentls: Doctor" command: the report's
// shape (what the command reads of it) and its text. Pure, so unit tests
// run it without VS Code. The binary redacts the key from everything it
// reports; nothing here ever sees it.

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail' | 'info';
  summary: string;
  details?: string[];
}

export interface DoctorReport {
  version?: string;
  workspace?: string;
  exit: number;
  checks: DoctorCheck[];
}

/** Parses the doctor's --json output; undefined when it is not a report. */
export function parseDoctor(stdout: string): DoctorReport | undefined {
  try {
    const r = JSON.parse(stdout);
    if (r && typeof r.exit === 'number' && Array.isArray(r.checks)) return r as DoctorReport;
  } catch {
    // not JSON: the caller shows what the binary said
  }
  return undefined;
}

const MARK: Record<DoctorCheck['status'], string> = { ok: 'ok', warn: 'warn', fail: 'FAIL', info: '--' };

/** The report as the output channel shows it: one line per check, its details under it. */
export function doctorText(r: DoctorReport): string {
  const lines = [`agentls doctor: ${r.workspace ?? ''}`];
  for (const c of r.checks) {
    lines.push(`${MARK[c.status] ?? c.status}`.padEnd(6) + c.name.padEnd(10) + c.summary);
    for (const d of c.details ?? []) lines.push(' '.repeat(16) + d);
  }
  lines.push('', doctorMessage(r).text);
  return lines.join('\n') + '\n';
}

/** The notification: how bad, and what it says. */
export function doctorMessage(r: DoctorReport): { level: 'info' | 'warning' | 'error'; text: string } {
  const failed = r.checks.filter((c) => c.status === 'fail');
  switch (r.exit) {
    case 0:
      return { level: 'info', text: 'agentls doctor: a task can run here.' };
    case 3:
      return { level: 'warning', text: 'agentls doctor: the sandbox is unavailable here, so every command is asked about (exit 3).' };
    default:
      return {
        level: 'error',
        text: `agentls doctor: a task could not run here (exit ${r.exit}): ` + failed.map((c) => `${c.name}: ${c.summary}`).join('; '),
      };
  }
}
