/**
 * The pure part of delegated jobs (docs/multi-machine.md): how a job of
 * agentls.jobs reads in the "Delegated Jobs" quick pick, what a finished
 * one offers, and the sentences the commands say. No vscode import, so the
 * unit tests run it in plain node.
 */

/** One job as agentls.jobs answers it. */
export interface Job {
  id: string;
  state?: string;
  repo?: string;
  commit?: string;
  task?: string;
  worker?: string;
  attempt?: number;
  exit?: number;
  result?: { status?: string; reason?: string; summary?: string; filesChanged?: string[] } | null;
  reason?: string;
  time?: string;
}

/** A job whose change can be fetched: it ran to its end on a worker. */
export function fetchable(j: Job): boolean {
  return j.state === 'done';
}

/** A job as the quick pick shows it: the task, then state, id and worker, then what came of it. */
export function jobItem(j: Job): { label: string; description: string; detail?: string; job: Job } {
  const task = String(j.task ?? '').replace(/\s+/g, ' ').trim();
  const head = task.length > 60 ? task.slice(0, 60) + '…' : task || j.id;
  const where = [j.state ?? '?', j.id, j.worker ? `on ${j.worker}` : '', j.commit ? `at ${j.commit.slice(0, 12)}` : ''].filter((x) => x !== '');
  const detail: string[] = [];
  if (j.result?.status) detail.push(`${j.result.status}${j.result.reason ? ` (${j.result.reason})` : ''}`);
  const files = j.result?.filesChanged ?? [];
  if (files.length > 0) detail.push(`changed ${files.map((f) => String(f).split('/').pop()).join(', ')}`);
  if (j.state === 'failed' && j.reason) detail.push(`failed: ${j.reason}`);
  if (fetchable(j)) detail.push('pick to bring its change here for review');
  return { label: head, description: where.join(' · '), detail: detail.length > 0 ? detail.join(' · ') : undefined, job: j };
}

/** What picking a job that cannot be fetched (yet) says. */
export function notFetchableText(j: Job): string {
  switch (j.state) {
    case 'queued':
      return `agentls: job ${j.id} waits for a worker; its change can be fetched once it is done.`;
    case 'running':
      return `agentls: job ${j.id} is running${j.worker ? ` on ${j.worker}` : ''}; its change can be fetched once it is done.`;
    case 'failed':
      return `agentls: job ${j.id} failed${j.reason ? `: ${j.reason}` : ''}.`;
    default:
      return `agentls: job ${j.id} is ${j.state ?? 'in no known state'}.`;
  }
}

/**
 * A server's error for a command, without the JSON-RPC framing: the text
 * after "agentls.delegate: " (the command names itself) is what to say.
 */
export function refusalText(command: string, error: string): string {
  const e = error.startsWith(`${command}: `) ? error.slice(command.length + 2) : error;
  return e;
}
