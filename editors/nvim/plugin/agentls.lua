-- User commands of the agentls plugin. They load lua/agentls on first use,
-- so a plugin manager may load this file eagerly at no cost; the server
-- itself starts from require('agentls').setup{} (or lspconfig).
if vim.g.loaded_agentls then
  return
end
vim.g.loaded_agentls = true
if vim.fn.has('nvim-0.7') == 0 then
  vim.api.nvim_err_writeln('agentls needs Neovim 0.7 or newer')
  return
end

local function cmd(name, fn, opts)
  opts.force = true
  vim.api.nvim_create_user_command(name, function(o)
    require('agentls').command(fn, o)
  end, opts)
end

cmd('AgentRun', 'run', { nargs = '*', range = true, bang = true,
  desc = 'agentls: run a task (prompted when empty); with a range, about the selection; ! for review mode' })
cmd('AgentCancel', 'cancel', { nargs = '?', desc = 'agentls: cancel a task (default: the newest running)' })
cmd('AgentCompose', 'compose', { nargs = 0, bang = true,
  desc = 'agentls: write a task of several lines in a scratch buffer; :w sends it (! for review mode)' })
cmd('AgentVerify', 'verify', { nargs = 0, desc = "agentls: run the project's checks (no model)" })
cmd('AgentStatus', 'status', { nargs = '?', desc = 'agentls: show tasks' })
cmd('AgentAccept', 'accept', { nargs = '*', complete = 'file',
  desc = 'agentls: accept a review task: [taskId] [% | file] (default: every file)' })
cmd('AgentReject', 'reject', { nargs = '*', complete = 'file',
  desc = 'agentls: reject a review task: [taskId] [% | file] (default: every file)' })
cmd('AgentUndo', 'undo', { nargs = '?', desc = 'agentls: undo what a task applied (default: the newest)' })
cmd('AgentRewind', 'rewind', { nargs = '*',
  desc = "agentls: rewind a task's session to a step: [taskId] [step] (default: the newest task, a picker)" })
cmd('AgentWorktrees', 'worktrees', { nargs = '*',
  desc = 'agentls: worktree tasks: a picker, or [merge|review|continue|open|discard ID]' })
cmd('AgentDelegate', 'delegate', { nargs = '*',
  desc = 'agentls: delegate a task to a worker elsewhere, at the pushed commit (prompted when empty)' })
cmd('AgentJobs', 'jobs', { nargs = '*',
  desc = 'agentls: delegated jobs: a list (a finished one comes back for review), or [fetch ID]' })
cmd('AgentTranscript', 'transcript', { nargs = '?', desc = 'agentls: open a task transcript (default: the newest task)' })
cmd('AgentStream', 'stream', { nargs = 0, desc = 'agentls: show or hide the event stream' })
cmd('AgentRunReview', 'runreview', { nargs = '*', range = true,
  desc = 'agentls: run a task in review mode (changes are proposed, not applied)' })
cmd('AgentChat', 'chat', { nargs = 0, desc = 'agentls: open the conversation (stream + follow-up input)' })
cmd('AgentContinue', 'continue', { nargs = '*',
  desc = 'agentls: follow up in the newest task\'s session (no text: open the input)' })
cmd('AgentHistory', 'history', { nargs = 0, desc = 'agentls: pick a task: transcript, continue, diff, undo' })
cmd('AgentModel', 'model', { nargs = '?', desc = 'agentls: pick the model for the next tasks' })
cmd('AgentDiff', 'diff', { nargs = '?',
  desc = 'agentls: a task\'s changes: a review task\'s proposals in diff mode, an applied task\'s diff' })
cmd('AgentCommand', 'commands', { nargs = '*',
  desc = 'agentls: run a project command (.agentls/commands); no name: pick one' })
