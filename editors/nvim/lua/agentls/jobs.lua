-- :AgentDelegate and :AgentJobs: tasks delegated to `agentls worker`s on
-- other machines (docs/multi-machine.md). :AgentDelegate {task} publishes
-- a job for the workspace's repository at its pushed commit
-- (agentls.delegate), or says why the server refused it (nothing pushed,
-- no delegate.url). :AgentJobs lists the jobs with their state
-- (agentls.jobs); picking a finished one brings its change back
-- (agentls.jobFetch) as a worktree task, which then goes through the
-- :AgentWorktrees actions: review hunk by hunk, merge, or discard.
local M = {}

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

local function oneline(s, n)
  s = tostring(s or ''):gsub('%s+', ' ')
  if n and #s > n then
    s = s:sub(1, n) .. '…'
  end
  return s
end

-- delegate publishes task; cb(err, result) instead of the notice when given.
function M.delegate(task, cb)
  require('agentls').exec('agentls.delegate', { task = task }, function(err, res)
    if cb then
      return cb(err, res)
    end
    if err then
      return notify('not delegated: ' .. (err.message or vim.inspect(err)), vim.log.levels.WARN)
    end
    local where = ''
    if type(res) == 'table' and res.repo then
      where = ' (' .. tostring(res.repo) .. ' at ' .. tostring(res.commit or ''):sub(1, 12) .. ')'
    end
    notify('delegated job ' .. tostring(res and res.job or '?') .. where
      .. '; :AgentJobs lists it, and its change comes back as a worktree task when it is done')
  end)
end

-- label is a job as the list shows it: id, state, what ran, why it failed.
function M.label(j)
  local tail = ''
  if j.state == 'failed' and j.reason and j.reason ~= '' then
    tail = '  (' .. oneline(j.reason, 60) .. ')'
  elseif type(j.result) == 'table' and j.result.status then
    tail = '  (' .. tostring(j.result.status) .. ')'
  end
  local worker = (j.worker and j.worker ~= '') and ('  on ' .. j.worker) or ''
  return string.format('%s  %-7s  %s%s%s', j.id or '?', j.state or '', oneline(j.task, 60), worker, tail)
end

-- fetchable: a job whose change can come back (it ended with a result).
function M.fetchable(j)
  return j.state == 'done' or (j.state == 'failed' and j.result ~= nil)
end

-- list calls cb(err, jobs), newest first (the server's order).
function M.list(cb)
  require('agentls').exec('agentls.jobs', {}, function(err, res)
    cb(err, (type(res) == 'table' and type(res.jobs) == 'table') and res.jobs or {})
  end)
end

-- fetch brings job id's change back as a worktree task, then offers the
-- worktree actions on it (cb(err, res) instead when given).
function M.fetch(id, cb)
  require('agentls').exec('agentls.jobFetch', { id = id }, function(err, res)
    if cb then
      return cb(err, res)
    end
    if err then
      return notify('fetch ' .. id .. ': ' .. (err.message or ''), vim.log.levels.WARN)
    end
    require('agentls').changed()
    local w = { id = res.worktree, taskId = res.worktree, path = res.path }
    local wt = require('agentls.worktrees')
    notify('job ' .. id .. ' came back as worktree task ' .. tostring(res.worktree)
      .. ' (:AgentWorktrees review|merge|discard ' .. tostring(res.worktree) .. ')')
    wt.offer(w, 'agentls: job ' .. id .. ' (' .. tostring(res.state or '') .. ')')
  end)
end

-- pick lists the jobs; a finished one picked is fetched.
function M.pick()
  M.list(function(err, list)
    if err then
      return notify('jobs: ' .. (err.message or ''), vim.log.levels.WARN)
    end
    if #list == 0 then
      return notify('no delegated jobs (:AgentDelegate {task} delegates one)')
    end
    vim.ui.select(list, { prompt = 'agentls: delegated jobs', kind = 'agentls.jobs', format_item = M.label }, function(j)
      if not j then
        return
      end
      if not M.fetchable(j) then
        return notify('job ' .. tostring(j.id) .. ' is ' .. tostring(j.state) .. '; its change can come back once it is done'
          .. (j.reason and (': ' .. j.reason) or ''))
      end
      M.fetch(j.id)
    end)
  end)
end

-- command is :AgentJobs [fetch ID].
function M.command(o)
  local args = o.fargs or {}
  if #args == 0 then
    return M.pick()
  end
  if args[1] == 'fetch' and args[2] then
    return M.fetch(args[2])
  end
  notify('usage: :AgentJobs [fetch ID]', vim.log.levels.WARN)
end

return M
