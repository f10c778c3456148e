-- The third part of the Neovim suite (run.lua calls it last): per-change
-- review where the cursor is (column 0 of a proposal's line), proposals
-- that follow the text after the user types above them, undo that asks
-- which task, and the server's questions (here "Trust this file") shown
-- natively with the answer reaching the server.
local M = {}
local T -- helpers from run.lua

function M.init(t)
  T = t
end

local function agentls_diags(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.source == 'agentls' then
      table.insert(out, d)
    end
  end
  table.sort(out, function(x, y)
    return x.lnum < y.lnum
  end)
  return out
end

local function line(buf, n)
  return vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1]
end

-- code_action runs Neovim's own code action UI at row (1-based), column 0,
-- picking the action whose title contains want; returns the titles offered.
local function code_action(buf, row, want)
  local titles, asked = {}, false
  vim.api.nvim_set_current_buf(buf)
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  local sel = vim.ui.select
  vim.ui.select = function(items, opts, cb)
    asked = true
    for i, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(titles, title)
    end
    for i, title in ipairs(titles) do
      if title:find(want, 1, true) then
        return cb(items[i], i)
      end
    end
    cb(nil, nil)
  end
  vim.lsp.buf.code_action()
  vim.wait(5000, function()
    return asked
  end, 20)
  vim.ui.select = sel
  return titles
end

function M.run(a)
  -- 1. Accept this change with the cursor at column 0, outside the
  --    diagnostic's range (which starts at "three").
  local dpath = T.ws .. '/d.txt'
  local f = assert(io.open(dpath, 'w'))
  f:write('one two three\nfour five six\nseven eight nine\n')
  f:close()
  vim.cmd('wincmd t')
  vim.cmd('edit ' .. vim.fn.fnameescape(dpath))
  local dbuf = vim.api.nvim_get_current_buf()
  vim.wait(5000, function()
    return a.client(dbuf) ~= nil
  end, 20)
  local before = #a.tasks()
  vim.cmd('AgentRunReview Propose capitals in d.txt')
  local t6 = T.new_task(before, 5000)
  local r6 = t6 and T.wait_task(t6, 20000)
  local shown = vim.wait(5000, function()
    return #agentls_diags(dbuf) == 2
  end, 20)
  local d = agentls_diags(dbuf)
  if not T.check('two proposals in d.txt, not at column 0', r6 and r6.status == 'ok' and shown and d[1].lnum == 0 and d[1].col > 0,
    'task ' .. vim.inspect(r6 and r6.status) .. ', diagnostics ' .. vim.inspect(d)) then
    return
  end
  local titles = code_action(dbuf, 1, 'Accept this change')
  local ok = vim.wait(8000, function()
    return line(dbuf, 1) == 'one two THREE'
  end, 20)
  T.check('column 0 of a proposal line offers Accept/Reject this change, and Accept applies it',
    ok and T.contains(titles, 'Reject this change'), 'line 1 ' .. vim.inspect(line(dbuf, 1)) .. ', offered ' .. vim.inspect(titles))

  -- 2. The user types above the other proposal: its diagnostic moves down
  --    a line and accepting at the new line works.
  vim.api.nvim_buf_set_lines(dbuf, 0, 0, false, { 'a line the user typed' })
  local moved = vim.wait(8000, function()
    local x = agentls_diags(dbuf)
    return #x == 1 and x[1].lnum == 3
  end, 20)
  T.check('the proposal follows the text when the user types above it', moved,
    'diagnostics ' .. vim.inspect(agentls_diags(dbuf)))
  titles = code_action(dbuf, 4, 'Accept this change')
  ok = vim.wait(8000, function()
    return line(dbuf, 4) == 'seven eight NINE'
  end, 20)
  T.check('Accept this change works at the proposal\'s new line', ok and line(dbuf, 1) == 'a line the user typed',
    vim.inspect(vim.api.nvim_buf_get_lines(dbuf, 0, -1, false)) .. ', offered ' .. vim.inspect(titles))

  -- 3. :AgentUndo asks which task: tasks with changes to undo, newest first.
  local _, st = T.sync(function(cb)
    a.status(nil, cb)
  end)
  local want = {}
  for _, t in ipairs((st and st.tasks) or {}) do
    if t.undoable then
      table.insert(want, 1, t.taskId)
    end
  end
  local offered, kind
  local sel = vim.ui.select
  vim.ui.select = function(items, opts, cb)
    kind = opts.kind
    offered = {}
    for _, it in ipairs(items) do
      table.insert(offered, it.taskId)
    end
    for i, it in ipairs(items) do
      if it.taskId == t6 then
        return cb(it, i)
      end
    end
    cb(nil, nil)
  end
  local nmsg = #T.messages
  vim.cmd('AgentUndo')
  vim.wait(5000, function()
    return offered ~= nil
  end, 20)
  vim.ui.select = sel
  T.check(':AgentUndo picks from the undoable tasks, newest first', kind == 'agentls.undo' and offered
    and offered[1] == t6 and vim.deep_equal(offered, want) and not vim.tbl_contains(offered, T.ids.t2)
    and not vim.tbl_contains(offered, T.ids.t1),
    'offered ' .. vim.inspect(offered) .. ', undoable ' .. vim.inspect(want))
  -- The task's two changes are gone. (The line typed between the two
  -- accepts goes too: the server's undo of a task accepted in two steps
  -- restores the text from before the first step; see the report.)
  local undone = vim.wait(8000, function()
    local text = table.concat(vim.api.nvim_buf_get_lines(dbuf, 0, -1, false), '\n')
    return text:find('one two three', 1, true) and text:find('seven eight nine', 1, true)
      and not text:find('THREE', 1, true) and not text:find('NINE', 1, true)
      and T.contains({ unpack(T.messages, nmsg + 1) }, 'undid ' .. t6)
  end, 20)
  T.check('the picked task is undone', undone,
    vim.inspect(vim.api.nvim_buf_get_lines(dbuf, 0, -1, false)) .. ' ' .. vim.inspect({ unpack(T.messages, nmsg + 1) }))
  nmsg = #T.messages
  vim.cmd('AgentUndo ' .. t6)
  local said = vim.wait(5000, function()
    return T.contains({ unpack(T.messages, nmsg + 1) }, 'did not undo ' .. t6 .. ': ')
  end, 20)
  local text = table.concat({ unpack(T.messages, nmsg + 1) }, '\n')
  T.check('undoing it again says why, with no raw error', said and not text:lower():find('jsonrpc', 1, true)
    and not text:find('code', 1, true), text)

  -- 4. A workspace .agentls.json that widens power: the next task asks
  --    "Trust this file" through window/showMessageRequest, shown by
  --    Neovim itself (inputlist on 0.7, vim.ui.select on 0.10), and the
  --    answer reaches the server, which records the trust.
  f = assert(io.open(T.ws .. '/.agentls.json', 'w'))
  f:write('{"tools": {"allow": ["echo trusted"]}}\n')
  f:close()
  local c = a.client(dbuf)
  c.notify('workspace/didChangeConfiguration', { settings = vim.empty_dict() })
  local question
  local inputlist, sel2 = vim.fn.inputlist, vim.ui.select
  vim.fn.inputlist = function(lines)
    question = table.concat(lines, '\n')
    for i, l in ipairs(lines) do
      if l:find('Trust this file', 1, true) then
        return i - 2 -- lines are the message, a header, then "1. ..."
      end
    end
    return 0
  end
  vim.ui.select = function(items, opts, cb)
    question = (opts.prompt or '') .. '\n' .. table.concat(vim.tbl_map(function(x)
      return type(x) == 'table' and (x.title or '') or tostring(x)
    end, items), '\n')
    for i, it in ipairs(items) do
      if type(it) == 'table' and it.title == 'Trust this file' then
        return cb(it, i)
      end
    end
    cb(nil, nil)
  end
  before = #a.tasks()
  vim.cmd('AgentRun say hi')
  local t7 = T.new_task(before, 5000)
  local r7 = t7 and T.wait_task(t7, 20000)
  vim.fn.inputlist, vim.ui.select = inputlist, sel2
  local store = T.read_file(os.getenv('XDG_STATE_HOME') .. '/agentls/trust.json') or ''
  T.check('"Trust this file" is asked with the question text, and the answer reaches the server',
    question and question:find('Trust it?', 1, true) and question:find('tools.allow', 1, true)
      and r7 and r7.status == 'ok' and store:find(T.ws .. '/.agentls.json', 1, true) and true or false,
    'question ' .. vim.inspect(question) .. ', task ' .. vim.inspect(r7 and r7.status) .. ', trust.json ' .. vim.inspect(store))

  -- 5. :AgentRewind t1 picks from the steps of t1's session (step 0, then
  --    its one turn that changed files) and rewinds to the chosen one.
  local labels, rkind
  local sel3 = vim.ui.select
  vim.ui.select = function(items, opts, cb)
    rkind, labels = opts.kind, {}
    for _, it in ipairs(items) do
      table.insert(labels, opts.format_item(it))
    end
    cb(items[#items], #items)
  end
  local nmsg = #T.messages
  vim.cmd('AgentRewind ' .. T.ids.t1)
  local rewound = vim.wait(8000, function()
    for i = nmsg + 1, #T.messages do
      if T.messages[i]:find('rewound session', 1, true) then
        return true
      end
    end
    return false
  end, 20)
  vim.ui.select = sel3
  T.check(':AgentRewind offers the steps with their summaries and rewinds', rewound and rkind == 'agentls.rewind'
    and labels and #labels == 2 and labels[2]:find('Now the edit.', 1, true) and labels[2]:find('hello.txt', 1, true) and true or false,
    'picker ' .. vim.inspect(labels) .. ', messages ' .. vim.inspect({ unpack(T.messages, nmsg + 1) }))
end

return M
