-- :AgentRewind: pick a step of a task's session (every model turn that
-- changed files) and rewind to it through agentls.rewind: the files go
-- back to that step (what you typed since stays) and the conversation is
-- cut there, so :AgentContinue goes on from it.
local M = {}

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

-- label is a step as the picker shows it.
function M.label(s)
  if s.step == 0 then
    return '0  before the first step'
  end
  return string.format('%d  %s · %s · %s', s.step, s.taskId or '', s.summary or '', table.concat(s.files or {}, ', '))
end

local function notice(res, err)
  if err then
    return notify('rewind: ' .. (err.message or 'no answer'), vim.log.levels.WARN)
  end
  if not res.applied then
    return notify('did not rewind: ' .. (res.reason or ''), vim.log.levels.WARN)
  end
  local msg = string.format('rewound session %s to step %d (%s)', res.session or '', res.step or 0,
    table.concat(res.files or {}, ', '))
  if res.conflicts and #res.conflicts > 0 then
    return notify(msg .. string.format('; %d places you edited since were left alone', #res.conflicts), vim.log.levels.WARN)
  end
  notify(msg)
end

-- rewind(opts, cb): opts.taskId or opts.session (default: the newest
-- task); opts.step skips the picker. cb(err, result) instead of a notice.
function M.rewind(opts, cb)
  local a = require('agentls')
  opts = opts or {}
  local target = { taskId = opts.taskId, session = opts.session }
  if not target.taskId and not target.session then
    local t = a.latest_task(function(x)
      return x.status ~= 'running' and x.status ~= 'queued'
    end)
    target.taskId = t and t.id
  end
  if not target.taskId and not target.session then
    local e = { message = 'no task to rewind' }
    return cb and cb(e) or notify(e.message, vim.log.levels.WARN)
  end
  local function go(step)
    a.exec('agentls.rewind', { taskId = target.taskId, session = target.session, step = step }, function(err, res)
      if cb then
        return cb(err, res)
      end
      notice(res, err)
    end)
  end
  if opts.step then
    return go(opts.step)
  end
  a.exec('agentls.checkpoints', target, function(err, res)
    if err then
      return cb and cb(err) or notify('rewind: ' .. (err.message or ''), vim.log.levels.WARN)
    end
    local steps = res.steps or {}
    if #steps == 0 then
      local e = { message = 'this session has no steps (no task of it changed files)' }
      return cb and cb(e) or notify(e.message)
    end
    local items = { { step = 0 } }
    for _, s in ipairs(steps) do
      table.insert(items, s)
    end
    vim.ui.select(items, {
      prompt = 'agentls: rewind to which step?',
      kind = 'agentls.rewind',
      format_item = M.label,
    }, function(s)
      if s then
        go(s.step)
      end
    end)
  end)
end

-- command is :AgentRewind [taskId] [step].
function M.command(o)
  local opts = {}
  for _, arg in ipairs(o.fargs or {}) do
    if arg:match('^%d+$') then
      opts.step = tonumber(arg)
    else
      opts.taskId = arg
    end
  end
  M.rewind(opts)
end

return M
