-- :AgentWorktrees: the workspace's worktree tasks (agent.isolation
-- "worktree": each works in a git worktree of its own). Pick one, then
-- merge it (every hunk you have not edited over; the others stay proposed
-- as diagnostics), review it hunk by hunk (code actions, :AgentAccept),
-- continue it (a follow-up in the same worktree), open its directory, or
-- discard it (worktree and branch removed).
local M = {}

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

-- label is a worktree as the picker shows it.
function M.label(w)
  local pending = ''
  if w.pending and #w.pending > 0 then
    pending = ' · waiting: ' .. table.concat(w.pending, ', ')
  end
  -- The task's short id (t15), as the stream and the end lines say it.
  return string.format('%s  %s  %s%s', M.name(w), w.state or '', (w.task or ''):gsub('%s+', ' '):sub(1, 60), pending)
end

-- name is how a worktree is called: its task's id, else its own.
function M.name(w)
  return (type(w.taskId) == 'string' and w.taskId ~= '') and w.taskId or w.id
end

M.actions = { 'merge', 'review', 'continue', 'open', 'discard' }

local function done(action, res, err, cb)
  if cb then
    return cb(err, res)
  end
  if err then
    return notify(action .. ': ' .. (err.message or 'no answer'), vim.log.levels.WARN)
  end
  if action == 'merge' then
    local n = #(res.conflicts or {})
    if n > 0 then
      return notify(string.format('merged %d hunk(s) of %s; %d conflict(s) over your edits stay proposed (see the diagnostics)',
        res.merged or 0, res.id or '', n), vim.log.levels.WARN)
    end
    return notify(string.format('merged %d hunk(s) of %s', res.merged or 0, res.id or ''))
  elseif action == 'review' then
    return notify('worktree ' .. (res.taskId or '') .. ' is up for review: code actions on its diagnostics, or :AgentAccept '
      .. (res.taskId or ''))
  elseif action == 'discard' then
    return notify('discarded worktree ' .. (res.id or ''))
  elseif action == 'continue' then
    return notify('task ' .. (res.taskId or '') .. ' continues in worktree ' .. (res.session or ''))
  end
end

-- act runs action on worktree w (a table from agentls.worktrees, or {id=…}).
function M.act(action, w, cb)
  local a = require('agentls')
  if action == 'open' then
    if not w.path then
      return done(action, nil, { message = 'no path' }, cb)
    end
    vim.cmd('tabedit ' .. vim.fn.fnameescape(w.path))
    return cb and cb(nil, { path = w.path })
  end
  if action == 'continue' then
    return vim.ui.input({ prompt = 'agentls: follow-up in ' .. w.id .. ': ' }, function(text)
      if not text or vim.trim(text) == '' then
        return
      end
      a.exec('agentls.worktreeContinue', { id = w.id, task = text }, function(err, res)
        done(action, res, err, cb)
      end)
    end)
  end
  local cmd = ({ merge = 'agentls.worktreeMerge', review = 'agentls.worktreeReview', discard = 'agentls.worktreeDiscard' })[action]
  if not cmd then
    return done(action, nil, { message = 'unknown action ' .. tostring(action) .. ' (merge, review, continue, open, discard)' }, cb)
  end
  local function go()
    a.exec(cmd, { id = w.id }, function(err, res)
      done(action, res, err, cb)
      -- The review, diff and worktree views show what is gone now.
      require('agentls').changed()
    end)
  end
  if action ~= 'discard' then
    return go()
  end
  -- Discarding throws the task's work away: asked first.
  local what = (w.pending and #w.pending > 0) and (' (its change to ' .. table.concat(w.pending, ', ') .. ' is lost)') or ''
  vim.ui.select({ 'Discard', 'Keep' }, {
    prompt = 'agentls: discard worktree ' .. M.name(w) .. what .. '?',
    kind = 'agentls.confirm',
  }, function(choice)
    if choice == 'Discard' then
      go()
    else
      done(action, nil, { message = 'kept ' .. M.name(w) }, cb)
    end
  end)
end

-- list calls cb(err, worktrees), newest first.
function M.list(cb)
  require('agentls').exec('agentls.worktrees', {}, function(err, res)
    local list = res and res.worktrees or {}
    table.sort(list, function(x, y)
      return (x.created or '') > (y.created or '')
    end)
    cb(err, list)
  end)
end

-- offer asks (vim.ui.select, prompt) what to do with worktree w, and does
-- it: the last step of :AgentWorktrees and of a fetched delegated job.
function M.offer(w, prompt)
  vim.ui.select(M.actions, { prompt = prompt, kind = 'agentls.worktree.action' }, function(action)
    if action then
      M.act(action, w)
    end
  end)
end

-- pick: a worktree, then what to do with it.
function M.pick()
  M.list(function(err, list)
    if err then
      return notify('worktrees: ' .. (err.message or ''), vim.log.levels.WARN)
    end
    if #list == 0 then
      return notify('no worktree tasks in this workspace (run one with agent.isolation "worktree")')
    end
    vim.ui.select(list, { prompt = 'agentls: which worktree?', kind = 'agentls.worktrees', format_item = M.label }, function(w)
      if not w then
        return
      end
      M.offer(w, 'agentls: ' .. M.name(w))
    end)
  end)
end

-- command is :AgentWorktrees [merge|review|continue|open|discard ID].
function M.command(o)
  local args = o.fargs or {}
  if #args == 0 then
    return M.pick()
  end
  local action, id = args[1], args[2]
  if not id then
    return notify('usage: :AgentWorktrees [merge|review|continue|open|discard ID]', vim.log.levels.WARN)
  end
  M.list(function(_, list)
    for _, w in ipairs(list or {}) do
      if w.id == id or w.taskId == id then
        return M.act(action, w)
      end
    end
    M.act(action, { id = id })
  end)
end

return M
