-- Pickers on vim.ui.select (which Telescope, fzf-lua or dressing.nvim
-- replace when installed): the task history, the model and the
-- project's commands.
local M = {}

local function agentls()
  return require('agentls')
end

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

-- state is a task's state in the task list: running, needs you (a
-- question of it waits on your answer, or its review does), failed, done.
function M.state(t)
  if (t.status == 'running' or t.status == 'queued') and agentls().waiting(t.taskId) then
    return 'needs you'
  elseif t.status == 'running' or t.status == 'queued' then
    return 'running'
  elseif t.outcome == 'awaiting review' then
    return 'needs you'
  elseif t.status == 'error' or t.reason == 'verifyFailed' then
    return 'failed'
  end
  return 'done'
end

function M.label(t)
  local files = t.filesChanged or {}
  local s = string.format('%s  %-20s %-9s %s', t.taskId, agentls().status_word(t), M.state(t), (t.task or ''):gsub('\n', ' '))
  if #files > 0 then
    local names = {}
    for _, f in ipairs(files) do
      local ok, p = pcall(vim.uri_to_fname, f)
      table.insert(names, ok and vim.fn.fnamemodify(p, ':.') or f)
    end
    s = s .. '  [' .. table.concat(names, ', ') .. ']'
  end
  return s
end

-- actions a task offers: undo only when the server can undo it (it
-- changed files that are not undone yet); a review task is accepted or
-- rejected instead.
function M.actions(t)
  if t.status == 'running' or t.status == 'queued' then
    return { 'transcript', 'cancel' }
  end
  local out = { 'transcript', 'continue', 'rewind' }
  if t.review and t.status ~= 'running' then
    vim.list_extend(out, { 'diff', 'accept', 'reject' })
  elseif t.undoable == true or (t.undoable == nil and #(t.filesChanged or {}) > 0) then
    table.insert(out, 'undo')
  end
  return out
end

local function act(t, what)
  local a = agentls()
  if what == 'transcript' then
    a.open_transcript(t.taskId)
  elseif what == 'continue' then
    vim.ui.input({ prompt = 'agentls follow-up (' .. t.taskId .. '): ' }, function(text)
      if text and text:match('%S') then
        a.run(text, { session = t.session })
      end
    end)
  elseif what == 'diff' then
    require('agentls.review').open(t.taskId)
  elseif what == 'undo' then
    a.undo({ taskId = t.taskId })
  elseif what == 'accept' then
    a.accept({ taskId = t.taskId })
  elseif what == 'reject' then
    a.reject({ taskId = t.taskId })
  elseif what == 'rewind' then
    require('agentls.rewind').command({ fargs = { t.taskId } })
  elseif what == 'cancel' then
    a.cancel(t.taskId)
  end
end

-- history lists the server's tasks, newest first; picking one offers what
-- can be done with it.
function M.history()
  agentls().status(nil, function(err, res)
    if err then
      return notify('history: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    local list = {}
    for _, t in ipairs(res.tasks or {}) do
      table.insert(list, 1, t)
    end
    if #list == 0 then
      return notify('no tasks yet')
    end
    vim.ui.select(list, { prompt = 'agentls tasks', format_item = M.label, kind = 'agentls.task' }, function(t)
      if not t then
        return
      end
      vim.ui.select(M.actions(t), { prompt = 'agentls ' .. t.taskId, kind = 'agentls.action' }, function(what)
        if what then
          act(t, what)
        end
      end)
    end)
  end)
end

-- model lists the endpoint's models (agentls.models) and sets the one
-- picked for the next tasks.
function M.model()
  agentls().exec('agentls.models', {}, function(err, res)
    if err then
      return notify('models: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    local current = agentls().config.model or res.current
    vim.ui.select(res.models or {}, {
      prompt = 'agentls model (now ' .. (current or '?') .. ')',
      kind = 'agentls.model',
      format_item = function(m)
        return m == current and (m .. '  (current)') or m
      end,
    }, function(m)
      if m then
        agentls().set_model(m)
      end
    end)
  end)
end

-- commands runs a project command (.agentls/commands/NAME.md, listed by
-- agentls.commands). line "NAME args" runs it at once; "" picks one and
-- asks for its arguments (the file's argument-hint is the prompt). It
-- runs like :AgentRun "/NAME args": the server expands it.
function M.commands(line)
  local a = agentls()
  local bufnr = vim.api.nvim_get_current_buf()
  line = (line or ''):gsub('^%s*/?', '')
  if line ~= '' then
    return a.run('/' .. line, { bufnr = bufnr })
  end
  a.exec('agentls.commands', {}, function(err, res)
    if err then
      return notify('commands: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    if res.error and res.error ~= '' then
      notify(res.error, vim.log.levels.WARN)
    end
    local list = res.commands or {}
    if #list == 0 then
      return notify('this project has no commands (Markdown files in .agentls/commands/)')
    end
    vim.ui.select(list, {
      prompt = 'agentls project command',
      kind = 'agentls.command',
      format_item = function(c)
        local s = '/' .. c.name
        if c.argumentHint and c.argumentHint ~= '' then
          s = s .. ' ' .. c.argumentHint
        end
        if c.description and c.description ~= '' then
          s = s .. '  — ' .. c.description
        end
        return s
      end,
    }, function(c)
      if not c then
        return
      end
      vim.ui.input({ prompt = '/' .. c.name .. ' ' .. (c.argumentHint or '') .. ': ' }, function(args)
        if args == nil then
          return
        end
        a.run(vim.trim('/' .. c.name .. ' ' .. args), { bufnr = bufnr })
      end)
    end)
  end, bufnr)
end

return M
