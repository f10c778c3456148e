-- A task that needs you says so where you are. When the server asks a
-- question (run this command, change this protected file, run again with
-- network), when a review task's changes wait for you, or when a task
-- ends, and the task's stream is not on screen in the current tab page,
-- the plugin raises Neovim's own notification: vim.notify with a level
-- (WARN: needs you, INFO: done, ERROR: failed), which nvim-notify, fidget
-- or noice show when installed. While the stream is on screen it says so
-- there already, and nothing more is raised. What was raised and not yet
-- seen is also counted in statusline() ("[1 needs you]") until the
-- stream is next on screen.
local M = {}

local asking = {} -- taskId -> the question the server waits on an answer to
local unseen = {} -- taskId -> 'needs you' | 'done' | 'failed', raised while the stream was off screen
local levels = { ['needs you'] = vim.log.levels.WARN, done = vim.log.levels.INFO, failed = vim.log.levels.ERROR }

local function first_line(s, n)
  s = vim.trim(tostring(s or '')):gsub('%s*\n%s*', ' ')
  if #s > n then
    s = s:sub(1, n) .. '…'
  end
  return s
end

-- on_screen: a window of the current tab page shows the stream.
function M.on_screen()
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    local b = vim.api.nvim_win_get_buf(w)
    if vim.b[b].agentls_stream then
      return true
    end
  end
  return false
end

-- seen forgets what was raised once the stream is on screen again.
function M.seen()
  if next(unseen) and M.on_screen() then
    unseen = {}
    pcall(vim.cmd, 'redrawstatus!')
  end
end

local function raise(id, state, text)
  if M.on_screen() then
    return false
  end
  if id then
    unseen[id] = state
  end
  vim.notify('agentls: ' .. (id and (id .. ' ') or '') .. state .. ': ' .. text, levels[state])
  return true
end

-- state_of is how an end event reads in the task list's words: needs you
-- (its changes wait for review), failed, done; nil for a cancel (you
-- did it, you know).
function M.state_of(ev)
  local r = ev.result or {}
  if r.cancelled or r.status == 'cancelled' then
    return nil
  elseif r.outcome == 'awaiting review' or ev.ended == 'awaiting review' then
    return 'needs you'
  elseif r.status == 'error' or r.reason == 'verifyFailed' then
    return 'failed'
  end
  return 'done'
end

-- ended raises the notice for task id's end event ev; true if raised.
function M.ended(id, ev)
  asking[id] = nil
  local state = M.state_of(ev)
  if not state then
    return false
  end
  local r = ev.result or {}
  local word = type(ev.ended) == 'string' and ev.ended ~= '' and ev.ended or require('agentls.stream').status_word(r)
  local text
  if state == 'needs you' then
    text = 'its changes wait for your review (:AgentDiff ' .. id .. ' to look, :AgentAccept / :AgentReject)'
  else
    local msg = first_line((r.summary or r.error or ''):gsub('^%s*#+%s*', ''), 120)
    -- "t3 done: Fixed it.", "t4 done (undone): …", "t5 failed: error (…): …"
    if state == 'done' then
      text = (word ~= 'ok' and word ~= 'done') and ('(' .. word .. ') ' .. msg) or msg
    else
      text = word .. (msg ~= '' and (': ' .. msg) or '')
    end
  end
  return raise(id, state, text)
end

-- subject is what a tool call names (its path or command), which the
-- server's question repeats.
local function subject(t)
  return t.message and t.message:match('^%S+%s+(.+)$')
end

-- task_for guesses the running task of client_id that a question is
-- about, for a server that does not name it (params.taskId): the one whose
-- last tool call the question names, else the newest.
function M.task_for(tasks, client_id, question)
  local newest
  for _, t in ipairs(tasks) do
    if (t.status == 'running' or t.status == 'queued') and (not t.client_id or t.client_id == client_id) then
      newest = t
    end
  end
  for i = #tasks, 1, -1 do
    local t = tasks[i]
    local s = subject(t)
    if (t.status == 'running' or t.status == 'queued') and s and question:find(s, 1, true) then
      return t.id
    end
  end
  return newest and newest.id
end

-- asked records that the server waits on the user for task id (nil: no
-- running task, e.g. a workspace file to trust) and raises the notice.
function M.asked(id, question)
  if id then
    asking[id] = question
  end
  -- One line in the echo area (no hit-enter prompt before the question);
  -- the question itself is asked in full next.
  raise(id, 'needs you', first_line(question, 60))
end

function M.answered(id)
  if id then
    asking[id] = nil
  end
end

-- waiting is the question task id waits on, if any.
function M.waiting(id)
  return asking[id]
end

-- statusline_part: " [1 needs you]", " [2 done]", … for what was raised
-- and not yet seen; '' when nothing was.
function M.statusline_part()
  if next(unseen) and M.on_screen() then
    unseen = {} -- on screen now, however it got there
  end
  local n = {}
  for id, state in pairs(unseen) do
    if asking[id] then
      state = 'needs you'
    end
    n[state] = (n[state] or 0) + 1
  end
  for id in pairs(asking) do
    if not unseen[id] then
      n['needs you'] = (n['needs you'] or 0) + 1
    end
  end
  local parts = {}
  for _, s in ipairs({ 'needs you', 'failed', 'done' }) do
    if n[s] then
      table.insert(parts, n[s] .. ' ' .. s)
    end
  end
  return #parts > 0 and (' [' .. table.concat(parts, ', ') .. ']') or ''
end

-- wrap makes a window/showMessageRequest handler that records and raises
-- an agentls question around handler (Neovim's own, which asks).
function M.wrap(handler)
  return function(err, params, ctx, config)
    local c = ctx and vim.lsp.get_client_by_id(ctx.client_id)
    if not c or c.name ~= 'agentls' or type(params) ~= 'table' then
      return handler(err, params, ctx, config)
    end
    -- The server names the task (taskId beside the standard members);
    -- a server too old to do so leaves the guess.
    local id = type(params.taskId) == 'string' and params.taskId ~= '' and params.taskId
      or M.task_for(require('agentls').tasks(), ctx.client_id, params.message or '')
    M.asked(id, params.message or '')
    local res = { handler(err, params, ctx, config) }
    M.answered(id)
    return unpack(res)
  end
end

-- install watches for the stream coming on screen, to clear the count.
function M.install()
  local group = vim.api.nvim_create_augroup('agentls_attention', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufWinEnter', 'WinEnter', 'TabEnter' }, {
    group = group,
    callback = function()
      M.seen()
    end,
  })
end

return M
