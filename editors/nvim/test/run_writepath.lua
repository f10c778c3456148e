-- Issue 31 in Neovim (run.lua calls it last): the user types a new line
-- while an edit is on its way, so the edit arrives for an older version of
-- the buffer. Neovim prints "Buffer … newer than edits", skips it, and
-- answers applied. agentls must see from the buffer's own didChange that
-- the edit is missing, plan it again on the typed text, and land it: both
-- the typed line and the edit end in the buffer.
local M = {}
local T

function M.init(helpers)
  T = helpers
end

function M.run(a)
  local path = T.ws .. '/drop.txt'
  local f = io.open(path, 'w')
  f:write('alpha\nbeta\ngamma\n')
  f:close()
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(5000, function()
    return #vim.lsp.get_active_clients({ bufnr = buf }) > 0
  end, 20) then
    return T.fail('an edit Neovim dropped is detected and lands', 'agentls did not attach to drop.txt')
  end

  -- The user has typed already (Neovim checks an edit's version only
  -- past 0, the version it opens a buffer at).
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'delta' })
  vim.wait(500)

  -- The first applyEdit finds the user typing: a line goes in at the top
  -- just before Neovim looks at the edit's version.
  -- Neovim checks an edit's version only past 0; Neovim 0.7 keeps
  -- sending version 0, so there it applies the edit unchecked and the
  -- check below is that the edit lands.
  local orig = vim.lsp.handlers['workspace/applyEdit']
  local calls, typed = 0, false
  vim.lsp.handlers['workspace/applyEdit'] = function(err, result, ctx, config)
    calls = calls + 1
    local dc = result and result.edit and result.edit.documentChanges
    local v = dc and dc[1] and dc[1].textDocument and dc[1].textDocument.version
    if calls == 1 and type(v) == 'number' and v > 0 then
      typed = true
      vim.api.nvim_buf_set_lines(buf, 0, 0, false, { 'typed by the user' })
    end
    return orig(err, result, ctx, config)
  end
  local _, started = T.sync(a.exec, 'agentls.run', { task = 'Writepath: shout gamma in drop.txt' })
  local id = started and started.taskId
  local r = id and T.wait_task(id, 20000)
  vim.lsp.handlers['workspace/applyEdit'] = orig
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local want = { 'alpha', 'beta', 'GAMMA', 'delta' }
  if typed then
    want = { 'typed by the user', 'alpha', 'beta', 'GAMMA', 'delta' }
  end
  T.check('an edit Neovim dropped (buffer newer than edits) is planned again and lands with the typed line',
    r and r.status == 'ok' and (not typed or calls >= 2) and vim.deep_equal(lines, want) and true or false,
    vim.inspect({ result = r, calls = calls, typed = typed, lines = lines }))
  vim.cmd('silent! bwipeout!')
end

return M
