-- Diff review: a review task's proposal for each file shown beside the
-- file in Neovim's own diff mode (:diffthis), on 0.7.2 as on current
-- Neovim. The right side is a scratch buffer holding what the proposal
-- would make of the current text (agentls.proposal); in it, `ga` accepts
-- the file's proposals and `gr` rejects them, `]c` / `[c` move between
-- changes as in any diff. Per-change Accept/Reject stay on the buffer's
-- code actions.
local M = {}

local function agentls()
  return require('agentls')
end

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

-- review_task picks the task: the given id, else the newest review task.
local function review_task(id)
  if id then
    return id
  end
  local t = agentls().latest_task(function(x)
    return x.review and x.result ~= nil
  end)
  return t and t.id
end

local function close_tab(win)
  if vim.api.nvim_win_is_valid(win) then
    vim.api.nvim_set_current_win(win)
    if #vim.api.nvim_list_tabpages() > 1 then
      vim.cmd('tabclose')
    end
  end
end

-- set_text replaces a proposal buffer's lines with proposed.
local function set_text(b, proposed)
  local lines = vim.split(proposed, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  vim.api.nvim_buf_set_option(b, 'modifiable', true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(b, 'modifiable', false)
end

-- refresh reads the proposals of every open proposal buffer of uri again:
-- the server publishes a file's review diagnostics anew after each accept,
-- reject or edit, so a per-change accept elsewhere (a code action) leaves
-- no stale diff behind. cb(bufs) gets the buffers refreshed.
function M.refresh(uri, cb)
  local todo = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local p = vim.api.nvim_buf_is_valid(b) and vim.b[b].agentls_proposal
    if p and p.uri == uri then
      table.insert(todo, { b = b, p = p })
    end
  end
  local left = #todo
  if left == 0 then
    return cb and cb({})
  end
  local done = {}
  for _, x in ipairs(todo) do
    agentls().exec('agentls.proposal', { taskId = x.p.taskId, uri = uri }, function(err, res)
      if not err and res and vim.api.nvim_buf_is_valid(x.b) then
        set_text(x.b, res.proposed or '')
        pcall(vim.cmd, 'diffupdate')
        table.insert(done, x.b)
      end
      left = left - 1
      if left == 0 and cb then
        cb(done)
      end
    end)
  end
end

local group = vim.api.nvim_create_augroup('agentls_review_refresh', { clear = true })
vim.api.nvim_create_autocmd('DiagnosticChanged', {
  group = group,
  callback = function(a)
    -- Never an error in the user's face from a refresh: a buffer may be
    -- going away while its diagnostics change.
    pcall(function()
      if vim.api.nvim_buf_get_option(a.buf, 'buftype') == '' and vim.api.nvim_buf_get_name(a.buf) ~= '' then
        M.refresh(vim.uri_from_bufnr(a.buf), M.on_refresh)
      end
    end)
  end,
})

-- show opens one file's proposal in a new tab, diffed against the file.
local function show(task_id, uri, proposed)
  local path = vim.uri_to_fname(uri)
  vim.cmd('tabnew ' .. vim.fn.fnameescape(path))
  local file_buf = vim.api.nvim_get_current_buf()
  vim.cmd('diffthis')
  vim.cmd('rightbelow vnew')
  local b = vim.api.nvim_get_current_buf()
  local right = vim.api.nvim_get_current_win()
  pcall(vim.api.nvim_buf_set_name, b, 'agentls://proposal/' .. task_id .. '/' .. vim.fn.fnamemodify(path, ':.'))
  vim.api.nvim_buf_set_option(b, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(b, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(b, 'swapfile', false)
  set_text(b, proposed)
  vim.api.nvim_buf_set_option(b, 'filetype', vim.api.nvim_buf_get_option(file_buf, 'filetype'))
  vim.b[b].agentls_proposal = { taskId = task_id, uri = uri }
  vim.cmd('diffthis')
  local function act(cmd)
    return function()
      agentls().exec(cmd, { taskId = task_id, uri = uri }, function(err, res)
        if err then
          return notify(cmd .. ': ' .. (err.message or ''), vim.log.levels.ERROR)
        end
        notify(string.format('%s %s %s', cmd, task_id, vim.fn.fnamemodify(path, ':.')))
        close_tab(right)
        if M.on_done then
          M.on_done(cmd, res)
        end
      end)
    end
  end
  vim.keymap.set('n', 'ga', act('agentls.accept'), { buffer = b, desc = 'agentls: accept this file' })
  vim.keymap.set('n', 'gr', act('agentls.reject'), { buffer = b, desc = 'agentls: reject this file' })
  -- The cursor stays in the proposal, where `ga` and `gr` are agentls's
  -- (in the file, `ga` is Vim's own).
  return b
end

-- open shows every file of a review task (default: the newest) in diff
-- tabs; cb(err, bufs) gets the proposal buffers.
function M.open(task_id, cb)
  task_id = review_task(task_id)
  if not task_id then
    local e = { message = 'no review task (run one with :AgentRunReview or :AgentRun!)' }
    return cb and cb(e) or notify(e.message, vim.log.levels.WARN)
  end
  agentls().exec('agentls.proposal', { taskId = task_id }, function(err, res)
    if err then
      return cb and cb(err) or notify('diff: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    local uris = res.uris or {}
    if #uris == 0 then
      local e = { message = 'task ' .. task_id .. ' has no changes waiting for review' }
      return cb and cb(e) or notify(e.message)
    end
    local bufs, left = {}, #uris
    for _, u in ipairs(uris) do
      agentls().exec('agentls.proposal', { taskId = task_id, uri = u }, function(e2, p)
        if not e2 and p then
          table.insert(bufs, show(task_id, u, p.proposed or ''))
        elseif e2 then
          notify('diff: ' .. (e2.message or ''), vim.log.levels.ERROR)
        end
        left = left - 1
        if left == 0 and cb then
          cb(nil, bufs)
        end
      end)
    end
  end)
end

return M
