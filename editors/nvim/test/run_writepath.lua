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
  M.two(a)
end

-- told returns what the model was told for each tool call id in ids (the
-- fake model's record of the requests it got), the last word for each.
local function told(ids)
  local got = {}
  local f = io.open(T.out .. '/requests.jsonl')
  if not f then
    return got
  end
  for line in f:lines() do
    local ok, rec = pcall(vim.fn.json_decode, line)
    local msgs = ok and type(rec) == 'table' and type(rec.body) == 'table' and rec.body.messages or {}
    for _, m in ipairs(msgs) do
      local id = m.toolCallId or m.tool_call_id
      if m.role == 'tool' and ids[id] then
        got[id] = m.content
      end
    end
  end
  f:close()
  return got
end

-- two: the user types a new line just before each of two tasks' edits
-- reaches the buffer (two tasks at once, each editing its own line of one
-- file). Both edits arrive, beside both typed lines, and neither task is
-- told of a lost edit: Neovim's drop is seen and the edit planned again,
-- so the tool result is the plain "edited" one.
function M.two(a)
  local name = 'both edits land while the user types (two tasks, one file), and no task is told of a drop'
  local path = T.ws .. '/drop2.txt'
  local f = io.open(path, 'w')
  f:write('one\ntwo\nthree\nfour\nfive\n')
  f:close()
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(5000, function()
    return #vim.lsp.get_active_clients({ bufnr = buf }) > 0
  end, 20) then
    return T.fail(name, 'agentls did not attach to drop2.txt')
  end
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'six' })
  vim.wait(500)

  -- Before each task's edit first reaches Neovim, the user types a line
  -- at the top: the edit is for an older version and Neovim skips it
  -- (0.7 sends version 0 and applies it unchecked).
  local orig = vim.lsp.handlers['workspace/applyEdit']
  local seen, typed, calls = {}, {}, 0
  vim.lsp.handlers['workspace/applyEdit'] = function(err, result, ctx, config)
    calls = calls + 1
    local dc = result and result.edit and result.edit.documentChanges
    local d = dc and dc[1]
    local v = d and d.textDocument and d.textDocument.version
    local text = ''
    for _, e in ipairs(d and d.edits or {}) do
      text = text .. (e.newText or '')
    end
    local which = text:find('TWO', 1, true) and 'TWO' or text:find('FOUR', 1, true) and 'FOUR' or nil
    if which and not seen[which] then
      seen[which] = true
      if type(v) == 'number' and v > 0 then
        table.insert(typed, 'typed before ' .. which)
        vim.api.nvim_buf_set_lines(buf, 0, 0, false, { 'typed before ' .. which })
      end
    end
    return orig(err, result, ctx, config)
  end
  local _, s1 = T.sync(a.exec, 'agentls.run', { task = 'Writepath2 first: shout two in drop2.txt' })
  local _, s2 = T.sync(a.exec, 'agentls.run', { task = 'Writepath2 second: shout four in drop2.txt' })
  local r1 = s1 and s1.taskId and T.wait_task(s1.taskId, 20000)
  local r2 = s2 and s2.taskId and T.wait_task(s2.taskId, 20000)
  vim.lsp.handlers['workspace/applyEdit'] = orig
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local body = {}
  for _, l in ipairs(lines) do
    if not l:find('^typed before ') then
      table.insert(body, l)
    end
  end
  local typed_in = 0
  for _, t in ipairs(typed) do
    if vim.tbl_contains(lines, t) then
      typed_in = typed_in + 1
    end
  end
  local res = told({ call_wp2a = true, call_wp2b = true })
  local clean = true
  for _, id in ipairs({ 'call_wp2a', 'call_wp2b' }) do
    local c = res[id] or ''
    if not c:find('^edited drop2%.txt') or c:find('does not have', 1, true) or c:find('lost', 1, true)
      or c:find('kept changing', 1, true) then
      clean = false
    end
  end
  -- Where Neovim checks versions (0.10 on), both edits were skipped
  -- once: the typed lines are there, and the model still heard "edited".
  local versioned = vim.fn.has('nvim-0.8') == 1
  T.check(name, r1 and r1.status == 'ok' and r2 and r2.status == 'ok'
    and vim.deep_equal(body, { 'one', 'TWO', 'three', 'FOUR', 'five', 'six' }) and typed_in == #typed and clean
    and (not versioned or #typed == 2),
    vim.inspect({ r1 = r1 and r1.result, r2 = r2 and r2.result, calls = calls, typed = typed, lines = lines, told = res }))
  vim.cmd('silent! bwipeout!')
  M.lost(a)
end

-- lost: the user types before EVERY try of one edit, so Neovim skips it
-- each time. That edit really is dropped, and the task is told so (its
-- tool result says nothing changed), where the two edits above were not.
function M.lost(a)
  local name = 'an edit Neovim drops every time is reported to the task as not made'
  if vim.fn.has('nvim-0.8') == 0 then
    -- 0.7 sends version 0 and applies every edit unchecked: it never drops one.
    return T.skip(name, 'Neovim 0.7 applies edits without a version check')
  end
  local path = T.ws .. '/drop3.txt'
  local f = io.open(path, 'w')
  f:write('red\ngreen\nblue\n')
  f:close()
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(5000, function()
    return #vim.lsp.get_active_clients({ bufnr = buf }) > 0
  end, 20) then
    return T.fail(name, 'agentls did not attach to drop3.txt')
  end
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'black' })
  vim.wait(500)
  local orig = vim.lsp.handlers['workspace/applyEdit']
  local tries = 0
  vim.lsp.handlers['workspace/applyEdit'] = function(err, result, ctx, config)
    local dc = result and result.edit and result.edit.documentChanges
    local d = dc and dc[1]
    local v = d and d.textDocument and d.textDocument.version
    for _, e in ipairs(d and d.edits or {}) do
      if (e.newText or ''):find('GREEN', 1, true) and type(v) == 'number' and v > 0 then
        tries = tries + 1
        vim.api.nvim_buf_set_lines(buf, 0, 0, false, { 'typed ' .. tries })
        break
      end
    end
    return orig(err, result, ctx, config)
  end
  local _, s = T.sync(a.exec, 'agentls.run', { task = 'Writepath3 lost: shout green in drop3.txt' })
  local r = s and s.taskId and T.wait_task(s.taskId, 20000)
  vim.lsp.handlers['workspace/applyEdit'] = orig
  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  local c = told({ call_wp3 = true }).call_wp3 or ''
  T.check(name, r and r.status == 'ok' and tries >= 2 and not vim.tbl_contains(lines, 'GREEN')
    and vim.tbl_contains(lines, 'green') and not c:find('^edited') and c:find('nothing', 1, true) ~= nil
    and c:find('drop3.txt', 1, true) ~= nil,
    vim.inspect({ result = r and r.result, tries = tries, lines = lines, told = c }))
  vim.cmd('silent! bwipeout!')
end

return M
