-- What an applied task changed: the server's unified diff (agentls.diff,
-- the text `agentls sessions show --diff` prints) in a scratch buffer with
-- filetype diff, so the transcript's "lines 7–14" can be seen. `q` closes
-- it; `u` (in it) undoes the task.
local M = {}

local function agentls()
  return require('agentls')
end

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
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
    local lines = vim.split(res.diff, '\n', { plain = true })
    if lines[#lines] == '' then
      table.remove(lines)
    end
    vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
    vim.api.nvim_buf_set_option(b, 'modifiable', false)
    vim.api.nvim_buf_set_option(b, 'filetype', 'diff')
    vim.b[b].agentls_diff = { taskId = res.taskId, files = res.files }
    vim.keymap.set('n', 'q', '<Cmd>tabclose<CR>', { buffer = b, desc = 'agentls: close the diff' })
    if cb then
      cb(nil, b)
    end
  end)
end

return M
