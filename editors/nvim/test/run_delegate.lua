-- Questions name their task, and delegation (run.lua calls it last).
-- 1. Two tasks run; the OLDER one asks (it writes a protected file) while
--    the newer one, which last read that same file, waits on the model.
--    The server names the asking task (taskId); the old guess (the task
--    whose last tool call the question names, newest first) picked the
--    newer one.
-- 2. :AgentDelegate {task} sends agentls.delegate with the task and shows
--    the server's answer: here a refusal (the workspace is no pushed git
--    repository and no NATS server is configured), said as a warning.
-- 3. :AgentJobs shows what agentls.jobs answers: here its error; with a
--    list (the server's answer replayed to the plugin's code), each job's
--    id, state and task, and a finished one picked is fetched
--    (agentls.jobFetch) into the worktree actions.
local M = {}
local T

function M.init(helpers)
  T = helpers
end

local function notes_since(n, needle)
  local out = {}
  for i = n + 1, #T.notes do
    if T.notes[i].msg:find(needle, 1, true) then
      table.insert(out, T.notes[i])
    end
  end
  return out
end

function M.question(a)
  local f = assert(io.open(T.ws .. '/q2.code-workspace', 'w'))
  f:write('marker-q2\n')
  f:close()
  -- Off screen: the question is raised as a notice naming its task.
  vim.cmd('tabnew')
  local n = #T.notes
  local during
  local inputlist, select = vim.fn.inputlist, vim.ui.select
  local function answer()
    during = during or {}
    for _, t in ipairs(a.tasks()) do
      if a.waiting(t.id) then
        table.insert(during, t.id)
      end
    end
  end
  vim.fn.inputlist = function(lines)
    answer()
    for i, l in ipairs(lines) do
      if l:find('Allow this change', 1, true) then
        return i - 2
      end
    end
    return 0
  end
  vim.ui.select = function(items, opts, cb)
    answer()
    for i, it in ipairs(items) do
      if type(it) == 'table' and it.title == 'Allow this change' then
        return cb(it, i)
      end
    end
    cb(nil, nil)
  end
  local _, s1 = T.sync(a.exec, 'agentls.run', { task = 'Ask older: write q2.code-workspace' })
  local _, s2 = T.sync(a.exec, 'agentls.run', { task = 'Ask newer: read q2.code-workspace' })
  local older, newer = s1 and s1.taskId, s2 and s2.taskId
  local r1 = older and T.wait_task(older, 20000)
  local r2 = newer and T.wait_task(newer, 20000)
  vim.fn.inputlist, vim.ui.select = inputlist, select
  local named = older and notes_since(n, 'agentls: ' .. older .. ' needs you: ') or {}
  local wrong = newer and notes_since(n, 'agentls: ' .. newer .. ' needs you: ') or {}
  T.check('a question names the task that asks (server taskId), not the newest running one',
    r1 and r1.status == 'ok' and r2 and r2.status == 'ok' and #named == 1 and #wrong == 0
    and during and #during == 1 and during[1] == older,
    vim.inspect({ older = older, newer = newer, r1 = r1 and r1.result, r2 = r2 and r2.result, waiting = during,
      notes = { unpack(T.notes, n + 1) } }))
  vim.cmd('tabclose')
end

function M.delegate(a)
  local n = #T.notes
  local sent
  local exec = a.exec
  a.exec = function(command, args, cb, ...)
    if command == 'agentls.delegate' then
      sent = args
    end
    return exec(command, args, cb, ...)
  end
  vim.cmd('AgentDelegate Delegated: add a changelog entry')
  local said
  vim.wait(10000, function()
    said = notes_since(n, 'agentls: not delegated: ')[1]
    return said ~= nil
  end, 20)
  a.exec = exec
  T.check(':AgentDelegate sends agentls.delegate with the task and shows the server\'s refusal',
    sent and sent.task == 'Delegated: add a changelog entry' and said and said.level == vim.log.levels.WARN
    and said.msg:find('agentls.delegate: ', 1, true) ~= nil, vim.inspect({ sent = sent, notes = { unpack(T.notes, n + 1) } }))

  -- :AgentJobs with no NATS server: the server's error, said.
  n = #T.notes
  local derr, direct = T.sync(a.exec, 'agentls.jobs', {})
  vim.cmd('AgentJobs')
  local jsaid
  vim.wait(10000, function()
    jsaid = notes_since(n, 'agentls: jobs: ')[1]
    return jsaid ~= nil
  end, 20)
  T.check(':AgentJobs shows what agentls.jobs answers (here its error: no NATS server)',
    derr and derr.message and jsaid and jsaid.msg == 'agentls: jobs: ' .. derr.message
    and derr.message:find('delegate.url', 1, true) ~= nil, vim.inspect({ err = derr, res = direct, said = jsaid }))

  -- A list as agentls.jobs answers it (docs/reference: {jobs: [...]}),
  -- replayed to the plugin: the list shows each job, a running one is not
  -- fetched, a done one is fetched and offered to the worktree actions.
  local list = { jobs = {
    { id = 'j20261128-1', state = 'done', repo = 'file:///r', commit = 'abc', task = 'add a changelog entry',
      worker = 'w1', attempt = 1, result = { status = 'ok' } },
    { id = 'j20261128-2', state = 'running', repo = 'file:///r', commit = 'abc', task = 'fix the typo', worker = 'w2', attempt = 1 },
    { id = 'j20261128-3', state = 'failed', repo = 'file:///r', commit = 'abc', task = 'rename x', attempt = 3,
      reason = 'the clone failed' },
  } }
  local calls, labels, kinds = {}, {}, {}
  a.exec = function(command, args, cb)
    table.insert(calls, { command, args })
    if command == 'agentls.jobs' then
      return cb(nil, list)
    elseif command == 'agentls.jobFetch' then
      return cb(nil, { worktree = 'j20261128-1', path = T.ws .. '/.wt', state = 'done', result = { status = 'ok' } })
    elseif command == 'agentls.worktreeReview' then
      return cb(nil, { taskId = 'j20261128-1' })
    end
    return cb({ message = 'unexpected ' .. command }, nil)
  end
  local select = vim.ui.select
  local pick = 'j20261128-2'
  vim.ui.select = function(items, opts, cb)
    table.insert(kinds, opts.kind)
    if opts.kind == 'agentls.jobs' then
      for _, it in ipairs(items) do
        table.insert(labels, opts.format_item(it))
      end
    end
    for i, it in ipairs(items) do
      if (opts.kind == 'agentls.jobs' and it.id == pick) or it == 'review' then
        return cb(it, i)
      end
    end
  end
  n = #T.notes
  vim.cmd('AgentJobs')
  local running_said = notes_since(n, 'job j20261128-2 is running')
  pick = 'j20261128-1'
  labels = {}
  vim.cmd('AgentJobs')
  vim.ui.select = select
  a.exec = exec
  -- The jobs list twice, then the fetch, then the review (the plugin's
  -- redraws ask agentls.proposal in between).
  local seq = {}
  for _, c in ipairs(calls) do
    if c[1] ~= 'agentls.proposal' then
      table.insert(seq, c[1] .. ' ' .. tostring(c[2].id or ''))
    end
  end
  local fetched = vim.deep_equal(seq, { 'agentls.jobs ', 'agentls.jobs ', 'agentls.jobFetch j20261128-1',
    'agentls.worktreeReview j20261128-1' })
  local reviewed = fetched
  T.check(':AgentJobs lists each job with its state; a running one stays, a done one is fetched into review',
    #labels == 3 and labels[1]:find('^j20261128%-1  done .*add a changelog entry.*%(ok%)') ~= nil
    and labels[2]:find('^j20261128%-2  running .*fix the typo') ~= nil
    and labels[3]:find('^j20261128%-3  failed .*the clone failed') ~= nil
    and #running_said == 1 and fetched and reviewed and vim.tbl_contains(kinds, 'agentls.worktree.action'),
    vim.inspect({ labels = labels, calls = seq, kinds = kinds, notes = { unpack(T.notes, n + 1) } }))
end

function M.run(a)
  M.question(a)
  M.delegate(a)
end

return M
