-- Issue 25's checks: the cursor lands in the chat input, a project command
-- runs from the picker, :AgentDiff shows what an applied task changed, and
-- the conversation says why the checks failed.
local M = {}
local T

function M.init(helpers)
  T = helpers
end

function M.run(a)
  -- :help agentls works right after the README's install (a clone on the
  -- runtimepath): doc/tags ships, and matches doc/agentls.txt.
  local plugin_doc = vim.fn.fnamemodify(T.here, ':h') .. '/doc'
  local fresh = T.out .. '/tagcheck'
  vim.fn.mkdir(fresh, 'p')
  vim.fn.writefile(vim.fn.readfile(plugin_doc .. '/agentls.txt'), fresh .. '/agentls.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(fresh))
  T.check('doc/tags ships and is up to date (no :helptags needed)', vim.fn.filereadable(plugin_doc .. '/tags') == 1
    and vim.deep_equal(vim.fn.readfile(plugin_doc .. '/tags'), vim.fn.readfile(fresh .. '/tags')),
    'run: nvim --headless -c "helptags editors/nvim/doc" -c q')

  -- :AgentVerify runs the project's checks alone: a task that ends
  -- without the model.
  do
    local before = #a.tasks()
    vim.cmd('AgentVerify')
    local tv = T.new_task(before, 5000)
    local rv = tv and T.wait_task(tv, 20000)
    T.check(':AgentVerify runs the project\'s checks as a task (agentls.verify)', rv ~= nil and rv.status ~= nil,
      'task ' .. vim.inspect(tv) .. ' result ' .. vim.inspect(rv))
  end

  -- A task the editor did not type (a code action's "Fix with agentls")
  -- gets a header from the prompt on its first event; a typed one keeps
  -- its own header and gets no second.
  do
    vim.lsp.handlers['agentls/event'](nil, { taskId = 'tfix', kind = 'state', from = 'idle', to = 'planning',
      task = 'Fix the failure at e.go:3' })
    local sl = a.stream_lines()
    local typed = 0
    for _, l in ipairs(sl) do
      if l:find('verify the workspace', 1, true) then
        typed = typed + 1
      end
    end
    vim.lsp.handlers['agentls/event'](nil, { taskId = 'tfix', kind = 'notice',
      text = '@../outside.txt was not read: outside the workspace' })
    sl = a.stream_lines()
    T.check('a mention not read is named in the conversation (notice)',
      T.contains(sl, '· notice: @../outside.txt was not read: outside the workspace'), vim.inspect(sl))
    T.check('a code action\'s task gets a header in the conversation; a typed one no second',
      T.contains(sl, '▶ tfix Fix the failure at e.go:3') and typed == 0, vim.inspect(sl))
  end

  -- :AgentCompose: a task of several lines, written in a scratch buffer
  -- and sent by :w (M.run is stubbed: the scripted model's turns are
  -- for the tasks below).
  do
    local real, sent = a.run, nil
    a.run = function(task, opts)
      sent = { task = task, review = opts and opts.review }
    end
    local code = vim.api.nvim_get_current_win()
    vim.cmd('AgentCompose')
    local cb = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(cb, 0, -1, false, { 'line one', 'line two' })
    vim.cmd('write')
    local gone = vim.wait(2000, function()
      return not vim.api.nvim_buf_is_valid(cb)
    end, 20)
    a.run = real
    if vim.api.nvim_win_is_valid(code) then
      vim.api.nvim_set_current_win(code)
    end
    T.check(':AgentCompose sends a task of several lines on :w and closes its buffer',
      sent ~= nil and sent.task == 'line one\nline two' and gone, vim.inspect(sent) .. ' closed ' .. tostring(gone))
  end

  -- :AgentChat from a code window puts the cursor in the input, so the
  -- follow-up is not typed into the source file.
  vim.cmd('edit ' .. vim.fn.fnameescape(T.ws .. '/hello.txt'))
  local code_win = vim.api.nvim_get_current_win()
  vim.cmd('AgentChat')
  local chat = require('agentls.chat')
  T.check(':AgentChat puts the cursor in the chat input',
    chat.input_winid() ~= nil and vim.api.nvim_get_current_win() == chat.input_winid() and vim.api.nvim_get_current_win() ~= code_win,
    'current window shows ' .. vim.api.nvim_buf_get_name(0))
  vim.api.nvim_set_current_win(code_win)

  -- A project command, picked from :AgentCommand's list with its argument
  -- asked for; the server expands it and the model gets its text.
  vim.fn.mkdir(T.ws .. '/.agentls/commands', 'p')
  local f = assert(io.open(T.ws .. '/.agentls/commands/shout.md', 'w'))
  f:write('---\ndescription: Shout a word\nargument-hint: <word>\n---\nShout the word $ARGUMENTS in e.txt.\n')
  f:close()
  f = assert(io.open(T.ws .. '/e.txt', 'w'))
  f:write('echo five\n')
  f:close()
  local shown, asked
  local sel, inp = vim.ui.select, vim.ui.input
  vim.ui.select = function(items, opts, cb)
    for i, it in ipairs(items) do
      local label = opts.format_item(it)
      shown = label
      if label == '/shout <word>  — Shout a word' then
        return cb(it, i)
      end
    end
    cb(nil, nil)
  end
  vim.ui.input = function(opts, cb)
    asked = opts.prompt
    cb('echo')
  end
  local before = #a.tasks()
  vim.cmd('AgentCommand')
  local t8 = T.new_task(before, 5000)
  vim.ui.select, vim.ui.input = sel, inp
  local r8 = t8 and T.wait_task(t8, 20000)
  T.check(':AgentCommand picks a project command and asks its argument', shown == '/shout <word>  — Shout a word'
    and asked == '/shout <word>: ', 'picker showed ' .. vim.inspect(shown) .. ', input asked ' .. vim.inspect(asked))
  T.check('the project command runs with its text', r8 and r8.status == 'ok' and T.read_file(T.ws .. '/e.txt') == 'ECHO five\n',
    'task ' .. vim.inspect(r8 and r8.status) .. ', e.txt ' .. vim.inspect(T.read_file(T.ws .. '/e.txt')))

  -- :AgentDiff on an applied task: the server's diff in a diff buffer.
  vim.cmd('AgentDiff')
  local ok = vim.wait(5000, function()
    return vim.bo.filetype == 'diff'
  end, 20)
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  T.check(':AgentDiff shows what an applied task changed', ok and T.contains(lines, '+++ b/e.txt')
    and T.contains(lines, '-echo five') and T.contains(lines, '+ECHO five'), vim.inspect(lines))
  pcall(vim.cmd, 'tabclose')

  -- The review diff follows the proposals: a change rejected elsewhere
  -- (here through the server command a code action runs) is gone from the
  -- open proposal buffer.
  local gpath = T.ws .. '/g.txt'
  f = assert(io.open(gpath, 'w'))
  f:write('one\ntwo\nthree\nfour\nfive\n')
  f:close()
  vim.cmd('edit ' .. vim.fn.fnameescape(gpath))
  local gbuf = vim.api.nvim_get_current_buf()
  before = #a.tasks()
  vim.cmd('AgentRunReview Propose both ends of g.txt')
  local t9 = T.new_task(before, 5000)
  local r9 = t9 and T.wait_task(t9, 20000)
  local said = vim.wait(5000, function()
    return T.contains(T.messages, 'wait for your review (:AgentDiff to look, :AgentAccept / :AgentReject')
  end, 20)
  T.check('the review message names Neovim\'s commands, not the server\'s', said, vim.inspect({ unpack(T.messages, math.max(1, #T.messages - 3)) }))
  local function gdiags()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(gbuf)) do
      if d.source == 'agentls' then
        table.insert(out, d)
      end
    end
    table.sort(out, function(x, y)
      return x.lnum < y.lnum
    end)
    return out
  end
  vim.wait(5000, function()
    return #gdiags() == 2
  end, 20)
  local e, bufs = T.sync(require('agentls.review').open, t9)
  local pb = bufs and bufs[1]
  local function plines()
    return pb and vim.api.nvim_buf_is_valid(pb) and table.concat(vim.api.nvim_buf_get_lines(pb, 0, -1, false), '|') or ''
  end
  local shown = plines()
  T.check(':AgentDiff leaves the cursor in the proposal, where ga is agentls\'s', pb ~= nil and vim.api.nvim_get_current_buf() == pb,
    'current buffer ' .. vim.api.nvim_buf_get_name(0))
  local d1 = gdiags()[1]
  local data = d1 and (d1.user_data and d1.user_data.lsp and d1.user_data.lsp.data) or {}
  local re = T.sync(a.exec, 'agentls.reject', { taskId = t9, uri = vim.uri_from_bufnr(gbuf), hunk = data.hunk })
  local fresh = vim.wait(5000, function()
    return plines() == 'one|two|three|four|FIVE'
  end, 20)
  T.check('the review diff is redrawn after a per-change reject', r9 and not e and shown == 'ONE|two|three|four|FIVE' and not re and fresh,
    string.format('task %s, open %s, shown %q, reject %s, now %q', tostring(r9 and r9.status), vim.inspect(e), shown, vim.inspect(re), plines()))
  pcall(vim.cmd, 'tabclose')

  -- A line added at the end of an open file: no stray blank line after
  -- it, and one undo takes the task's change back.
  local hpath = T.ws .. '/h.txt'
  f = assert(io.open(hpath, 'w'))
  f:write('alpha\n')
  f:close()
  vim.cmd('edit ' .. vim.fn.fnameescape(hpath))
  local hbuf = vim.api.nvim_get_current_buf()
  before = #a.tasks()
  vim.cmd('AgentRun Append beta to h.txt')
  local t10 = T.new_task(before, 5000)
  local r10 = t10 and T.wait_task(t10, 20000)
  local hl = vim.api.nvim_buf_get_lines(hbuf, 0, -1, false)
  vim.api.nvim_set_current_buf(hbuf)
  vim.cmd('silent! undo')
  local hu = vim.api.nvim_buf_get_lines(hbuf, 0, -1, false)
  T.check('an insert at the end of a file leaves no stray blank line, and undo takes it back',
    r10 and r10.status == 'ok' and vim.deep_equal(hl, { 'alpha', 'beta' }) and vim.deep_equal(hu, { 'alpha' }),
    string.format('task %s, after %s, after undo %s', tostring(r10 and r10.status), vim.inspect(hl), vim.inspect(hu)))

  -- Status words: the undone task and the review task whose proposals
  -- were rejected no longer read "ok" in the history.
  T.sync(a.exec, 'agentls.undo', { taskId = t8 })
  T.sync(a.exec, 'agentls.reject', { taskId = t9 })
  local _, st = T.sync(function(cb)
    a.status(nil, cb)
  end)
  local labels = {}
  for _, x in ipairs((st and st.tasks) or {}) do
    labels[x.taskId] = require('agentls.pickers').label(x)
  end
  T.check('history reads "undone" and "rejected", not "ok"', (labels[t8] or ''):find(t8 .. '  undone', 1, true) ~= nil
    and (labels[t9] or ''):find(t9 .. '  rejected', 1, true) ~= nil, vim.inspect({ labels[t8], labels[t9] }))

  -- A failed check says why in the conversation, not only "1 problem".
  local stream = require('agentls.stream')
  stream.render({ taskId = 'tv', kind = 'verify', verify = { passed = false, summary = 'go vet: 1 problem located',
    commands = { 'go vet ./...' }, problems = 1, located = { 'e.go:3: undefined: ECHO' },
    feedback = 'e.go:3:2: undefined: ECHO' } })
  stream.render({ taskId = 'tw', kind = 'verify', verify = { passed = false, summary = 'make check failed (exit 2)',
    commands = { 'make check' }, problems = 0, feedback = 'lint: trailing space in README\nexit status 2' } })
  stream.render({ taskId = 'tz', kind = 'end', result = { status = 'ok', summary = '## Done\nRenamed the helper.' } })
  local sl = a.stream_lines()
  T.check('the summary line drops a Markdown heading\'s #', T.contains(sl, '■ tz ok: Done'), vim.inspect({ unpack(sl, math.max(1, #sl - 3)) }))
  T.check('the conversation shows why the checks failed', T.contains(sl, '    e.go:3: undefined: ECHO')
    and T.contains(sl, '    lint: trailing space in README'), vim.inspect({ unpack(sl, math.max(1, #sl - 8)) }))
end

return M
