-- Issue 36 in Neovim (run.lua calls it after the worktree checks): what
-- autonomy did (how a command ran, its output folded under it, the status
-- item), the plan updated in place, two tasks that never mix unnamed, the
-- rough edges (E444, raw tables, `_` drawn as an error), end lines in
-- words, and a review document that follows accept and reject.
local M = {}
local T

function M.init(helpers)
  T = helpers
end

local function write(name, text)
  local f = assert(io.open(T.ws .. '/' .. name, 'w'))
  f:write(text)
  f:close()
end

-- run starts a task with :AgentRun and waits for its end.
local function run(a, cmd)
  local before = #a.tasks()
  vim.cmd(cmd)
  local id = T.new_task(before, 5000)
  return id, id and T.wait_task(id, 20000)
end

-- rows returns the stream's lines that contain needle, with their numbers.
local function rows(a, needle)
  local out = {}
  for i, l in ipairs(a.stream_lines()) do
    if l:find(needle, 1, true) then
      table.insert(out, { i, l })
    end
  end
  return out
end

function M.run(a)
  local stream = require('agentls.stream')
  a.open_stream()

  -- 1. Autonomy shown: the command's line says how it ran and its exit
  --    code; its output is under it, folded.
  local id, r = run(a, 'AgentRun I36 run the listing')
  local line = rows(a, '→ run_command printf')[1]
  T.check('i36/1 a command says how it ran and its exit code', r and r.status == 'ok' and line ~= nil
    and line[2]:find(' · exit 0 · ', 1, true) ~= nil
    and (line[2]:find('in the sandbox, unasked', 1, true) or line[2]:find('approved by you', 1, true)
      or line[2]:find('allowed by your rules', 1, true)) ~= nil,
    vim.inspect({ line = line, result = r and r.result }))
  local out = rows(a, '    │ two')[1]
  local w = stream.winid()
  local closed = out and w and vim.api.nvim_win_call(w, function()
    return vim.fn.foldclosed(out[1])
  end)
  T.check('i36/1 its output is folded under it', out ~= nil and line ~= nil and out[1] > line[1]
    and closed ~= nil and closed > 0, vim.inspect({ out = out, foldclosed = closed }))
  local item = a.autonomy({ step = 3 })
  T.check('i36/1 the status item says the approval mode and the budget left',
    item:find('sandboxed', 1, true) ~= nil and item:find('steps left', 1, true) ~= nil, vim.inspect(item))
  -- `_` in a tool name is not drawn as a Markdown error.
  local synname = line and w and vim.api.nvim_win_call(w, function()
    local col = vim.fn.stridx(line[2], '_') + 1
    return vim.fn.synIDattr(vim.fn.synID(line[1], col, 1), 'name')
  end)
  T.check('i36/6 "_" in a tool name is not an error', line ~= nil and synname ~= 'markdownError', vim.inspect(synname))

  -- 2. The plan: three updates, one block, updated where it is.
  local pid, pr = run(a, 'AgentRun I36 plan it')
  local plans = {}
  local lines = a.stream_lines()
  local from = rows(a, 'I36 plan it')[1]
  for i = from and from[1] or #lines + 1, #lines do
    if lines[i]:find('^· plan') then
      table.insert(plans, lines[i])
    end
  end
  T.check('i36/2 the plan is updated in place, not printed again', pr and pr.status == 'ok' and #plans == 1
    and plans[1]:find('2 of 2 done', 1, true) ~= nil and #rows(a, '[x] Write B') == 1,
    vim.inspect({ id = pid, plans = plans }))

  -- 4. Two tasks at once: every line sits under its own task's name.
  write('i36a.txt', 'apple pie\n')
  write('i36b.txt', 'banana split\n')
  local before = #a.tasks()
  vim.cmd('AgentRun I36 task A')
  vim.cmd('AgentRun I36 task B')
  local ids = {}
  vim.wait(5000, function()
    local list = a.tasks()
    ids = {}
    for i = before + 1, #list do
      table.insert(ids, list[i].id)
    end
    return #ids == 2
  end, 20)
  for _, x in ipairs(ids) do
    T.wait_task(x, 20000)
  end
  -- Which id is which: the headers say.
  local ha, hb = rows(a, ' I36 task A')[1], rows(a, ' I36 task B')[1]
  local ta = ha and ha[2]:match('^▶ (t%d+) ')
  local tb = hb and hb[2]:match('^▶ (t%d+) ')
  local owner, wrong = nil, {}
  lines = a.stream_lines()
  local start = (rows(a, 'I36 task A')[1] or { #lines + 1 })[1]
  for i = start, #lines do
    local l = lines[i]
    local named = l:match('^▶ (t%d+) ') or l:match('^┄ (t%d+)')
    if named then
      owner = named
    end
    local want = (l:find('i36a.txt', 1, true) or l:find('Task A', 1, true)) and ta
      or (l:find('i36b.txt', 1, true) or l:find('Task B', 1, true)) and tb
    if want and owner ~= want then
      table.insert(wrong, string.format('%d under %s: %s', i, tostring(owner), l))
    end
  end
  T.check('i36/4 two tasks never mix unnamed', ta ~= nil and tb ~= nil and #wrong == 0
    and #rows(a, '→ read_file i36a.txt') == 1 and #rows(a, '→ read_file i36b.txt') == 1,
    vim.inspect({ wrong = wrong, stream = { unpack(lines, start) } }))

  -- 7. End lines in words: a cancel reads "cancelled by you", once.
  local t2 = T.ids and T.ids.t2
  T.check('i36/7 a cancel reads "cancelled by you"', t2 ~= nil and #rows(a, '■ ' .. t2 .. ' cancelled by you') == 1
    and #rows(a, 'cancelled: cancelled') == 0, vim.inspect(rows(a, '■ ' .. tostring(t2))))

  -- Sub-agents: a helper's step shows under its task, in the server's words.
  stream.render({ taskId = 'tn36', kind = 'nested', line = 'explore (where is Add) → read_file calc.go' })
  stream.render({ taskId = 'tn36', kind = 'nested', line = '' })
  T.check('i36/1 a sub-agent step shows under its task', #rows(a, '    ↳ explore (where is Add) → read_file calc.go') == 1
    and #rows(a, '┄ tn36') == 1, vim.inspect(rows(a, 'tn36')))

  -- 6. :AgentStream after :only: no E444, no traceback.
  a.open_stream()
  local sw = stream.winid()
  local errs = {}
  if sw then
    -- From the stream's own window when it is a split (a float cannot be
    -- left alone: E5601 is Neovim's).
    if vim.api.nvim_win_get_config(sw).relative == '' then
      vim.api.nvim_set_current_win(sw)
    end
    local ok, e = pcall(vim.cmd, 'only')
    if not ok then
      table.insert(errs, 'only: ' .. tostring(e))
    end
  end
  for _ = 1, 2 do
    local ok, e = pcall(vim.cmd, 'AgentStream')
    if not ok then
      table.insert(errs, tostring(e))
    end
  end
  T.check('i36/6 :AgentStream after :only works', sw ~= nil and #errs == 0, vim.inspect(errs))
  -- :AgentReject's answer in words, not a Lua table.
  local said = a.answer_text('t3', { applied = true, rejected = 1 })
  T.check('i36/6 an accept or reject answers in words', said == 't3: rejected 1 change'
    and a.answer_text('t4', { applied = true, accepted = 2, leftOut = {} }) == 't4: accepted 2 changes', said)

  -- 8. The task list (:AgentHistory): states in words; rewind and undo
  --    reachable from it.
  local pk = require('agentls.pickers')
  T.check('i36/8 the task list says running, needs you, failed, done and offers rewind and undo',
    pk.state({ status = 'running' }) == 'running' and pk.state({ status = 'ok', outcome = 'awaiting review' }) == 'needs you'
      and pk.state({ status = 'error' }) == 'failed' and pk.state({ status = 'ok' }) == 'done'
      and vim.tbl_contains(pk.actions({ status = 'ok' }), 'rewind')
      and vim.tbl_contains(pk.actions({ status = 'ok', undoable = true }), 'undo')
      and vim.tbl_contains(pk.actions({ status = 'running' }), 'cancel')
      and pk.label({ taskId = 't9', status = 'ok', outcome = 'awaiting review', task = 'x' }):find('^t9  awaiting review +needs you') ~= nil,
    vim.inspect(pk.actions({ status = 'ok' })))

  -- 5. The review document follows the state: its header names
  --    :AgentAccept, and after a reject it shows nothing left.
  write('r36.txt', 'old text\n')
  local rid, rr = run(a, 'AgentRunReview I36 review r36')
  local _, st = T.sync(a.exec, 'agentls.status', { taskId = rid })
  local doc = st and st.reviewDocument and vim.uri_to_fname(st.reviewDocument)
  local dbuf
  if doc then
    vim.cmd('split ' .. vim.fn.fnameescape(doc))
    dbuf = vim.api.nvim_get_current_buf()
  end
  local head = dbuf and table.concat(vim.api.nvim_buf_get_lines(dbuf, 0, 2, false), '\n') or ''
  T.check('i36/5 the review document names :AgentAccept, not agentls.accept', rr and rr.status == 'ok'
    and head:find(':AgentAccept', 1, true) ~= nil and head:find('agentls.accept', 1, true) == nil, head)
  if rid then
    vim.cmd('AgentReject ' .. rid)
  end
  local redrawn = dbuf and vim.wait(8000, function()
    return (vim.api.nvim_buf_get_lines(dbuf, 0, 1, false)[1] or ''):find('nothing left to review', 1, true) ~= nil
  end, 20)
  T.check('i36/5 the review document redraws after a reject', redrawn == true,
    vim.inspect({ doc = dbuf and vim.api.nvim_buf_get_lines(dbuf, 0, -1, false), name = dbuf and vim.api.nvim_buf_get_name(dbuf),
      messages = { unpack(T.messages, math.max(1, #T.messages - 3)) } }))
  local raw = false
  for _, m in ipairs(T.messages) do
    raw = raw or (m:find('agentls.reject', 1, true) ~= nil and m:find('{', 1, true) ~= nil)
  end
  T.check('i36/6 :AgentReject prints no raw table', not raw, 'a message shows a Lua table')
  M.attention(a)
  M.undo_view(a)
end

-- run_on_file runs task about hello.txt, whichever window is current
-- (one may show a review document, which is no task's context).
local function run_on_file(a, task)
  local before = #a.tasks()
  a.run(task, { bufnr = vim.fn.bufadd(T.ws .. '/hello.txt') })
  local id = T.new_task(before, 5000)
  return id, id and T.wait_task(id, 20000)
end

-- notes_since are the vim.notify calls after the n-th that mention needle.
local function notes_since(n, needle)
  local out = {}
  for i = n + 1, #T.notes do
    if T.notes[i].msg:find(needle, 1, true) then
      table.insert(out, T.notes[i])
    end
  end
  return out
end

-- stream_tab is the tab page showing the stream, if any.
local function to_stream_tab()
  for _, tp in ipairs(vim.api.nvim_list_tabpages()) do
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(tp)) do
      if vim.b[vim.api.nvim_win_get_buf(w)].agentls_stream then
        vim.api.nvim_set_current_tabpage(tp)
        return true
      end
    end
  end
  return false
end

-- 9. A task that needs you says so where you are: off screen (another tab
--    page), a question warns and names its task, the task list says
--    "needs you" while it waits, an end says done (INFO) or failed
--    (ERROR), a review waits (WARN); with the stream on screen, nothing.
function M.attention(a)
  local pk = require('agentls.pickers')
  a.open_stream()
  vim.cmd('tabnew')
  local away = vim.api.nvim_get_current_tabpage()
  local n = #T.notes
  local during = {}
  local inputlist, select = vim.fn.inputlist, vim.ui.select
  local function answer(question)
    -- What the user would see while the question is open: the task's
    -- state in the task list and the statusline.
    for _, t in ipairs(a.tasks()) do
      if t.status == 'running' then
        during.id = t.id
        during.state = pk.state({ taskId = t.id, status = 'running' })
      end
    end
    during.statusline = a.statusline()
    during.question = question
  end
  vim.fn.inputlist = function(lines)
    answer(table.concat(lines, '\n'))
    for i, l in ipairs(lines) do
      if l:find('Allow this change', 1, true) then
        return i - 2
      end
    end
    return 0
  end
  vim.ui.select = function(items, opts, cb)
    answer(opts.prompt or '')
    for i, it in ipairs(items) do
      if type(it) == 'table' and it.title == 'Allow this change' then
        return cb(it, i)
      end
    end
    cb(nil, nil)
  end
  local id, r = run(a, 'AgentRun I36 needs you ask')
  vim.fn.inputlist, vim.ui.select = inputlist, select
  local warned = id and notes_since(n, 'agentls: ' .. id .. ' needs you: agentls wants to change n36.code-workspace') or {}
  T.check('i36/9 a question off screen warns (vim.notify WARN) and names its task', #warned == 1
    and warned[1].level == vim.log.levels.WARN and during.question and during.question:find('n36.code-workspace', 1, true) ~= nil,
    vim.inspect({ id = id, notes = { unpack(T.notes, n + 1) }, during = during }))
  T.check('i36/9 while it waits the task list says "needs you" and so does the statusline', during.id == id
    and during.state == 'needs you' and (during.statusline or ''):find('[1 needs you]', 1, true) ~= nil,
    vim.inspect(during))
  local done = id and notes_since(n, 'agentls: ' .. id .. ' done') or {}
  T.check('i36/9 its end off screen is an INFO notice', r and r.status == 'ok' and #done == 1
    and done[1].level == vim.log.levels.INFO and done[1].msg:find('Asked and done', 1, true) ~= nil,
    vim.inspect({ r = r and r.result, notes = { unpack(T.notes, n + 1) } }))
  local counted = a.statusline()

  -- A review that waits for you, and a task that failed, off screen.
  local f = assert(io.open(T.ws .. '/q36.txt', 'w'))
  f:write('old q\n')
  f:close()
  n = #T.notes
  local rid = run(a, 'AgentRunReview I36 notify review')
  local rn = rid and notes_since(n, 'agentls: ' .. rid .. ' needs you: ') or {}
  T.check('i36/9 a review that waits for you off screen warns', #rn == 1 and rn[1].level == vim.log.levels.WARN
    and rn[1].msg:find(':AgentAccept', 1, true) ~= nil, vim.inspect({ unpack(T.notes, n + 1) }))
  if rid then
    a.reject({ taskId = rid }, function() end)
  end
  n = #T.notes
  local fid, fr = run(a, 'AgentRun I36 notify fail')
  local fn = fid and notes_since(n, 'agentls: ' .. fid .. ' failed: ') or {}
  T.check('i36/9 a failed task off screen is an ERROR notice', fr and fr.status == 'error' and #fn == 1
    and fn[1].level == vim.log.levels.ERROR, vim.inspect({ r = fr and fr.result, notes = { unpack(T.notes, n + 1) } }))

  -- Back where the stream is: the count clears, and a task that ends in
  -- view raises nothing.
  local before_back = a.statusline()
  local back = to_stream_tab()
  local cleared = a.statusline()
  T.check('i36/9 the statusline counts what you have not seen, until the stream is on screen', back
    and counted:find('1 done', 1, true) ~= nil and before_back:find('needs you', 1, true) ~= nil
    and cleared:find('needs you', 1, true) == nil and cleared:find('done]', 1, true) == nil,
    vim.inspect({ counted = counted, before = before_back, after = cleared }))
  n = #T.notes
  local qid, qr = run_on_file(a, 'I36 notify quiet')
  T.check('i36/9 with the stream on screen an end raises nothing', qr and qr.status == 'ok' and qid ~= nil
    and #notes_since(n, 'agentls: ' .. qid) == 0, vim.inspect({ unpack(T.notes, n + 1) }))
  if vim.api.nvim_tabpage_is_valid(away) then
    vim.api.nvim_set_current_tabpage(away)
    vim.cmd('tabclose')
    to_stream_tab()
  end
end

-- 10. The applied task's diff view follows an undo made from the task
--     list (:AgentHistory): the list says each task's state and offers
--     rewind and undo; after the undo the view says nothing is left.
function M.undo_view(a)
  local f = assert(io.open(T.ws .. '/u36.txt', 'w'))
  f:write('old u36\n')
  f:close()
  local id, r = run_on_file(a, 'I36 undo u36')
  vim.cmd('AgentDiff ' .. (id or ''))
  local dbuf
  vim.wait(5000, function()
    local b = vim.fn.bufnr('agentls://diff/' .. tostring(id))
    dbuf = b > 0 and b or nil
    return dbuf ~= nil
  end, 20)
  local shown = dbuf and table.concat(vim.api.nvim_buf_get_lines(dbuf, 0, -1, false), '\n') or ''
  T.check('i36/10 :AgentDiff shows what the task applied', r and r.status == 'ok' and shown:find('+new u36', 1, true) ~= nil,
    vim.inspect({ r = r and r.result, shown = shown }))
  local labels, actions = {}, nil
  local select = vim.ui.select
  vim.ui.select = function(items, opts, cb)
    if opts.kind == 'agentls.task' then
      for _, t in ipairs(items) do
        table.insert(labels, opts.format_item(t))
        if t.taskId == id then
          return cb(t)
        end
      end
      return cb(nil)
    end
    actions = items
    cb(vim.tbl_contains(items, 'undo') and 'undo' or nil)
  end
  local n = #T.messages
  vim.cmd('AgentHistory')
  local redrawn = dbuf and vim.wait(8000, function()
    return (vim.api.nvim_buf_get_lines(dbuf, 0, 1, false)[1] or ''):find('nothing it applied is left', 1, true) ~= nil
  end, 20)
  vim.ui.select = select
  local mine
  for _, l in ipairs(labels) do
    if l:find('^' .. tostring(id) .. ' ') then
      mine = l
    end
  end
  T.check('i36/8 the task list shows each task\'s state and offers rewind and undo', mine ~= nil
    and mine:find(' done ', 1, true) ~= nil and actions ~= nil and vim.tbl_contains(actions, 'rewind')
    and vim.tbl_contains(actions, 'undo'), vim.inspect({ labels = labels, actions = actions }))
  T.check('i36/10 after an undo from the task list the diff view says nothing is left', redrawn == true
    and T.read_file(T.ws .. '/u36.txt') == 'old u36\n' and T.contains({ unpack(T.messages, n + 1) }, 'undid ' .. tostring(id)),
    vim.inspect({ view = dbuf and vim.api.nvim_buf_get_lines(dbuf, 0, -1, false), file = T.read_file(T.ws .. '/u36.txt'),
      messages = { unpack(T.messages, n + 1) } }))
  if dbuf and vim.api.nvim_buf_is_valid(dbuf) then
    vim.api.nvim_set_current_tabpage(vim.api.nvim_win_get_tabpage(vim.fn.win_findbuf(dbuf)[1]))
    vim.cmd('tabclose')
  end
end

return M
