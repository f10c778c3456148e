-- What an applied task changed: the server's unified diff (agentls.diff,
-- the text `agentls sessions show --diff` prints) in a scratch buffer with
-- filetype diff, so the transcript's "lines 7–14" can be seen. `q` closes
-- it; `u` (in it) undoes the task. It follows the task: after an undo it
-- shows what is left, or says nothing is.
local M = {}

local function agentls()
  return require('agentls')
end

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

local function set_diff(b, res)
  local lines = vim.split(res.diff or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  if #lines == 0 then
    -- Nothing it applied is left (undone, or rewound past): the view
    -- says so instead of showing what is gone.
    lines = { '# agentls task ' .. res.taskId .. ': nothing it applied is left (' .. (res.reason or 'undone') .. ')' }
  end
  vim.api.nvim_buf_set_option(b, 'modifiable', true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(b, 'modifiable', false)
  vim.api.nvim_buf_set_option(b, 'modified', false)
end

-- refresh redraws the open diff views of task_id (nil: every one) from
-- the server's agentls.diff now: after an undo, an accept or a rewind
-- they show what the task's changes are now. cb() once all are drawn.
function M.refresh(task_id, cb)
  local views = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local d = vim.api.nvim_buf_is_loaded(b) and vim.b[b].agentls_diff
    if d and d.taskId and (not task_id or d.taskId == task_id) then
      table.insert(views, { b = b, id = d.taskId })
    end
  end
  local left = #views
  if left == 0 then
    return cb and cb()
  end
  for _, v in ipairs(views) do
    agentls().exec('agentls.diff', { taskId = v.id }, function(err, res)
      if not err and res and vim.api.nvim_buf_is_valid(v.b) then
        res.taskId = res.taskId or v.id
        set_diff(v.b, res)
        vim.b[v.b].agentls_diff = { taskId = v.id, files = res.files }
      end
      left = left - 1
      if left == 0 and cb then
        cb()
      end
    end)
  end
end

-- open shows the diff of task_id (nil: the newest task with applied
-- changes) in a new tab; cb(err, bufnr) when given.
function M.open(task_id, cb)
  agentls().exec('agentls.diff', { taskId = task_id }, function(err, res)
    if err then
      return cb and cb(err) or notify('diff: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    if not res or (res.diff or '') == '' then
      local e = { message = (res and res.reason) or 'nothing to show' }
      return cb and cb(e) or notify(e.message)
    end
    local name = 'agentls://diff/' .. res.taskId
    local old = vim.fn.bufnr(name)
    if old > 0 then
      pcall(vim.api.nvim_buf_delete, old, { force = true })
    end
    vim.cmd('tabnew')
    local b = vim.api.nvim_get_current_buf()
    pcall(vim.api.nvim_buf_set_name, b, name)
    vim.api.nvim_buf_set_option(b, 'buftype', 'nofile')
    vim.api.nvim_buf_set_option(b, 'bufhidden', 'wipe')
    vim.api.nvim_buf_set_option(b, 'swapfile', false)
    set_diff(b, res)
    vim.api.nvim_buf_set_option(b, 'filetype', 'diff')
    vim.b[b].agentls_diff = { taskId = res.taskId, files = res.files }
    vim.keymap.set('n', 'q', '<Cmd>tabclose<CR>', { buffer = b, desc = 'agentls: close the diff' })
    vim.keymap.set('n', 'u', function()
      agentls().undo({ taskId = res.taskId })
    end, { buffer = b, desc = 'agentls: undo this task' })
    if cb then
      cb(nil, b)
    end
  end)
end

return M
