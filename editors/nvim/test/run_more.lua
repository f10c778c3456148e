-- The second half of the Neovim suite (run.lua calls it): the conversation
-- and follow-ups, the model picker, @mentions, saving unopened files, the
-- diff review, hiding repeated diagnostics, the task history, status
-- wording, :checkhealth, :help, key maps, lsp/agentls.lua, and commands
-- used before setup().
local M = {}
local T -- helpers from run.lua

function M.init(t)
  T = t
end

local function requests()
  local out = {}
  for l in io.lines(T.out .. '/requests.jsonl') do
    table.insert(out, vim.json.decode(l))
  end
  return out
end

local function all_content(req)
  local parts = {}
  for _, m in ipairs((req.body or {}).messages or {}) do
    if type(m.content) == 'string' then
      table.insert(parts, m.content)
    end
  end
  return table.concat(parts, '\n---\n')
end

-- before_setup: a second Neovim runs a command with no setup() call; the
-- plugin must set itself up with defaults and answer.
function M.before_setup(url)
  local nv = os.getenv('AGENTLS_TEST_NVIM_BIN')
  if not nv or nv == '' then
    return T.skip('commands work before setup()', 'AGENTLS_TEST_NVIM_BIN not set')
  end
  local plugin = vim.fn.fnamemodify(T.here, ':h')
  local bindir = vim.fn.fnamemodify(os.getenv('AGENTLS_BIN'), ':h')
  local msgs = T.out .. '/before-setup.txt'
  local lua = table.concat({
    "vim.notify = function(m) local f = io.open('" .. msgs .. "', 'a'); f:write(m, '\\n'); f:close() end",
    "vim.cmd('edit " .. T.ws .. "/hello.txt')",
    "vim.cmd('AgentStatus')",
    "vim.wait(15000, function() local f = io.open('" .. msgs .. "'); if f then f:close() return true end end, 50)",
    "vim.cmd('qall!')",
  }, '\n')
  local script = T.out .. '/before-setup.lua'
  local f = assert(io.open(script, 'w'))
  f:write(lua)
  f:close()
  local env = 'PATH=' .. bindir .. ':' .. os.getenv('PATH') .. ' AGENTLS_BASE_URL=' .. url
  vim.fn.system(env .. ' timeout 30 ' .. vim.fn.shellescape(nv) .. ' --headless -i NONE -n -u NONE --cmd '
    .. vim.fn.shellescape('set rtp^=' .. plugin) .. ' -c "runtime plugin/agentls.lua" -c '
    .. vim.fn.shellescape('luafile ' .. script) .. ' </dev/null')
  local got = T.read_file(msgs) or ''
  T.check('commands work before setup()', got:find('no tasks yet', 1, true) ~= nil,
    'the command said: ' .. vim.inspect(got))
end

function M.run(a, s)
  local stream = require('agentls.stream')

  -- The model picker: agentls.models lists the endpoint's models.
  local offered
  vim.ui.select = function(items, opts, cb)
    offered = items
    for i, m in ipairs(items) do
      if m == 'gpt-4o-mini' then
        return cb(m, i)
      end
    end
    cb(nil, nil)
  end
  vim.cmd('AgentModel')
  vim.wait(8000, function()
    return a.config.model == 'gpt-4o-mini'
  end, 20)
  T.check(':AgentModel offers /v1/models and sets the model', a.config.model == 'gpt-4o-mini'
    and vim.deep_equal(offered, { 'gpt-4o-mini', 'other-model', 'test-model' }),
    'offered ' .. vim.inspect(offered) .. ', model ' .. tostring(a.config.model))

  -- The conversation: a two-line follow-up typed into the input and sent
  -- with <C-s>; it continues t3's session, names a file with @, and edits
  -- a file that has no buffer.
  local fh = io.open(T.ws .. '/c.txt', 'w')
  fh:write('gamma three\n')
  fh:close()
  vim.cmd('AgentChat')
  local chat = require('agentls.chat')
  local iw = chat.input_winid()
  T.check(':AgentChat opens the input under the stream', iw ~= nil and stream.is_open(), 'no input window')
  if not iw then
    return
  end
  vim.api.nvim_set_current_win(iw)
  vim.api.nvim_buf_set_lines(chat.input_bufnr(), 0, -1, false,
    { 'Also change c.txt; @b.txt shows the style.', 'This is the second line of the follow-up.' })
  local before = #a.tasks()
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<C-s>', true, false, true), 'mx', false)
  local t4 = T.new_task(before, 5000)
  if not T.check('<C-s> in the input sends the follow-up', t4 ~= nil, 'no task started') then
    return
  end
  local r4 = T.wait_task(t4, 20000)
  T.check('the follow-up ends ok', r4 and r4.status == 'ok', 'status ' .. tostring(r4 and r4.status))
  T.check('the input is cleared after sending', table.concat(vim.api.nvim_buf_get_lines(chat.input_bufnr(), 0, -1, false)) == '',
    'input still holds text')
  local reqs = requests()
  local req
  for _, r in ipairs(reqs) do
    if all_content(r):find('second line of the follow-up', 1, true) then
      req = req or r
    end
  end
  local body = all_content(req or {})
  T.check('the follow-up continues the session (agentls.continue)', body:find('Change both files', 1, true) ~= nil,
    'the request has no earlier turn: ' .. body:sub(1, 400))
  T.check('the follow-up keeps its two lines', body:find('Also change c.txt; @b.txt shows the style.\nThis is the second line', 1, true) ~= nil,
    'no two-line prompt')
  T.check('@b.txt attaches the file', body:find('Files the user mentioned with @', 1, true) ~= nil
    and body:find('beta two', 1, true) ~= nil, 'no attachment in the request')
  T.check('the picked model is used', req and req.body and req.body.model == 'gpt-4o-mini',
    'model ' .. vim.inspect(req and req.body and req.body.model))
  T.check('an edit to an unopened file is saved', T.read_file(T.ws .. '/c.txt') == 'GAMMA\nG2\nG3 three\n',
    'c.txt on disk: ' .. vim.inspect(T.read_file(T.ws .. '/c.txt')))
  local cb = vim.fn.bufnr(T.ws .. '/c.txt')
  T.check('no hidden modified buffer is left', cb < 0 or not vim.api.nvim_buf_is_loaded(cb)
    or not vim.api.nvim_buf_get_option(cb, 'modified'), ':ls shows c.txt modified')
  local lines = a.stream_lines()
  T.check('the stream names the edit size', T.contains(lines, '→ edit_file c.txt · ok (1 line → 3 lines)'),
    'stream: ' .. vim.inspect(lines))
  T.check('the task line has tokens, context meter and cost',
    T.contains(lines, ' ↳ Also change c.txt; @b.txt shows the style. ⏎ This is the second line of the follow-up.  · 41000 in / 50 out tokens · context 16% of 128k · $0.0062'),
    'stream: ' .. vim.inspect(lines))

  -- Status wording: checks still failing never read "ok".
  stream.render({ taskId = 'tx', kind = 'end', result = { status = 'ok', reason = 'verifyFailed', summary = 'go test fails' } })
  T.check('checks failing reads "done, checks failing"', T.contains(a.stream_lines(), '■ tx done, checks failing: go test fails'),
    'stream end: ' .. vim.inspect(a.stream_lines()[#a.stream_lines() - 1]))

  -- Review in diff mode (works on 0.7 too), and repeated diagnostics.
  vim.cmd('wincmd t')
  vim.api.nvim_set_current_buf(s.abuf)
  before = #a.tasks()
  vim.cmd('AgentRunReview Propose uno for one')
  local t5 = T.new_task(before, 5000)
  local r5 = t5 and T.wait_task(t5, 20000)
  T.check(':AgentRunReview runs in review mode', r5 and r5.review == true and T.line1(s.abuf) == 'ALPHA one',
    'task ' .. vim.inspect(r5 and { r5.status, r5.review }) .. ', a.txt ' .. vim.inspect(T.line1(s.abuf)))
  vim.wait(5000, function()
    return s.proposals(s.abuf) > 0
  end, 20)
  local d = vim.diagnostic.get(s.abuf)[1]
  if d then
    local ns = vim.api.nvim_create_namespace('other_server')
    vim.diagnostic.set(ns, s.abuf, { { lnum = d.lnum, col = 0, message = d.message, severity = vim.diagnostic.severity.ERROR, source = 'gopls' } })
    local hidden = vim.wait(5000, function()
      return s.proposals(s.abuf) == 0
    end, 20)
    T.check('an agentls diagnostic repeating another source is hidden', hidden, 'still shown')
    vim.diagnostic.reset(ns, s.abuf)
    local back = vim.wait(5000, function()
      return s.proposals(s.abuf) == 1
    end, 20)
    T.check('it comes back when the other source clears', back, 'agentls diagnostics: ' .. s.proposals(s.abuf))
  else
    T.fail('an agentls diagnostic repeating another source is hidden', 'no proposal diagnostic on a.txt')
  end
  local e, bufs = T.sync(require('agentls.review').open, t5)
  local pb = bufs and bufs[1]
  local plines = pb and vim.api.nvim_buf_get_lines(pb, 0, -1, false) or {}
  local diffwins = 0
  for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_option(w, 'diff') then
      diffwins = diffwins + 1
    end
  end
  T.check(':AgentDiff shows the proposal in diff mode', not e and vim.deep_equal(plines, { 'ALPHA uno' }) and diffwins == 2,
    'err ' .. vim.inspect(e) .. ', proposal ' .. vim.inspect(plines) .. ', diff windows ' .. diffwins)
  if pb then
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      if vim.api.nvim_win_get_buf(w) == pb then
        vim.api.nvim_set_current_win(w)
      end
    end
    vim.api.nvim_feedkeys('ga', 'mx', false)
    local acc = vim.wait(8000, function()
      return T.line1(s.abuf) == 'ALPHA uno'
    end, 20)
    T.check('ga in the diff accepts the file', acc, 'a.txt line 1 is ' .. vim.inspect(T.line1(s.abuf)))
  end

  -- Task history: a list from agentls.status; undo only where files changed.
  local picks = {}
  local function history(want_id, action)
    local labels, acts = {}, nil
    vim.ui.select = function(items, opts, cb)
      if opts.kind == 'agentls.task' then
        local pick
        for i, it in ipairs(items) do
          table.insert(labels, opts.format_item(it))
          if it.taskId == want_id then
            pick = i
          end
        end
        return cb(pick and items[pick], pick)
      end
      acts = items
      for i, it in ipairs(items) do
        if it == action then
          return cb(it, i)
        end
      end
      cb(nil, nil)
    end
    vim.cmd('AgentHistory')
    vim.wait(5000, function()
      return acts ~= nil
    end, 20)
    table.insert(picks, { labels = labels, acts = acts })
    return labels, acts or {}
  end
  local labels, acts = history(s.t2, 'none')
  T.check(':AgentHistory lists the tasks with status', #labels >= 5 and T.contains(labels, s.t2 .. '  cancelled'),
    vim.inspect(labels))
  T.check('a task with no changes is not offered for undo', not vim.tbl_contains(acts, 'undo')
    and vim.tbl_contains(acts, 'continue'), vim.inspect(acts))
  local _, acts4 = history(t4, 'transcript')
  local opened = vim.wait(5000, function()
    return vim.api.nvim_buf_get_name(0):match('%.md$') ~= nil
  end, 20)
  T.check('history opens a transcript and offers undo for a task with changes',
    opened and vim.tbl_contains(acts4, 'undo'), vim.inspect(acts4) .. ' ' .. vim.api.nvim_buf_get_name(0))

  -- :checkhealth agentls
  vim.cmd('checkhealth agentls')
  local hl = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  local htext = table.concat(hl, '\n')
  T.check(':checkhealth agentls reports binary, version, endpoint and key',
    htext:find('found: ', 1, true) and htext:find('version: agentls', 1, true)
      and htext:find('3 model(s) listed, "test-model" among them', 1, true) and htext:find('key: found in the environment (never shown)', 1, true) and true or false,
    htext:sub(1, 1500))
  T.check(':checkhealth agentls runs agentls doctor: the model took tools, the sandbox and trust are reported',
    htext:find('agentls doctor', 1, true) and htext:find('tool calls accepted', 1, true)
      and htext:find('sandbox: ', 1, true) and htext:find('trust: ', 1, true)
      and htext:find('a task can run here', 1, true) and true or false,
    htext:sub(1, 2500))
  T.check(':checkhealth never shows the key', not htext:find('SECRET', 1, true), 'the key is in the report')

  -- :checkhealth while the server is still starting: it waits for the
  -- client (here one that shows up on the fifth look) rather than saying
  -- no server runs; one that never shows up reads "starting".
  if a._setup_done then
    local real, looks = a.client, 0
    a.client = function(...)
      looks = looks + 1
      return looks > 4 and real(...) or nil
    end
    vim.cmd('checkhealth agentls')
    local late = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    a.client = function()
      return nil
    end
    local auto = a.config.autostart
    a.config.autostart = true
    vim.cmd('checkhealth agentls')
    local never = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
    a.client, a.config.autostart = real, auto
    T.check(':checkhealth right after start-up waits for the server, else says "starting"',
      late:find('running (client', 1, true) ~= nil and not late:find('no agentls server is running', 1, true)
        and never:find('starting: no agentls server has answered yet', 1, true) ~= nil,
      late:sub(1, 600) .. '\n----\n' .. never:sub(1, 600))
  else
    T.skip(':checkhealth right after start-up waits for the server, else says "starting"', 'setup() not used in this start-up mode')
  end

  -- :help agentls, from a copy of doc/ (helptags writes a tags file).
  local doc = T.out .. '/rtp/doc'
  vim.fn.mkdir(doc, 'p')
  local src = vim.fn.fnamemodify(T.here, ':h') .. '/doc/agentls.txt'
  vim.fn.writefile(vim.fn.readfile(src), doc .. '/agentls.txt')
  vim.cmd('helptags ' .. vim.fn.fnameescape(doc))
  vim.opt.runtimepath:append(T.out .. '/rtp')
  local hok = pcall(vim.cmd, 'help :AgentChat')
  T.check(':help :AgentChat opens doc/agentls.txt', hok and vim.api.nvim_buf_get_name(0):match('agentls%.txt$') ~= nil,
    'help buffer ' .. vim.api.nvim_buf_get_name(0))
  pcall(vim.cmd, 'helpclose')

  -- Opt-in key maps.
  local before_map = vim.fn.maparg('<leader>ac', 'n')
  require('agentls.keymaps').set(true)
  T.check('key maps are opt-in and set by keymaps = true', before_map == ''
    and vim.fn.maparg('<leader>ac', 'n'):find('AgentChat', 1, true) ~= nil, vim.fn.maparg('<leader>ac', 'n'))

  -- lsp/agentls.lua for vim.lsp.enable (0.11+).
  local cfg = dofile(vim.fn.fnamemodify(T.here, ':h') .. '/lsp/agentls.lua')
  T.check('lsp/agentls.lua is a client config', type(cfg) == 'table' and cfg.cmd[1] == 'agentls'
    and vim.tbl_contains(cfg.root_markers, '.agentls.json'), vim.inspect(cfg))
  if vim.lsp.enable then
    -- As a user without agentls on PATH would: name the binary with
    -- vim.lsp.config, then enable. (Enabled with the default cmd, which is
    -- not on PATH here, Neovim 0.12 detaches every client named agentls
    -- from each buffer it opens after, the running one too.)
    vim.lsp.config('agentls', { cmd = { os.getenv('AGENTLS_BIN'), 'serve', '--log-file', T.out .. '/agentls.log' } })
    local eok, eerr = pcall(vim.lsp.enable, 'agentls')
    local resolved = vim.lsp.config.agentls or {}
    -- A Markdown file: neither start-up mode's own autocmd attaches it in
    -- the vim.lsp.start set-up (that one starts on 'text' only).
    local md = T.ws .. '/enabled.md'
    vim.fn.writefile({ '# enabled' }, md)
    vim.cmd('edit ' .. vim.fn.fnameescape(md))
    local mbuf = vim.api.nvim_get_current_buf()
    local attached = vim.wait(5000, function()
      return #require('agentls.compat').get_clients({ bufnr = mbuf, name = 'agentls' }) == 1
    end, 20)
    local all = require('agentls.compat').get_clients({ name = 'agentls' })
    T.check("vim.lsp.enable('agentls') with lsp/agentls.lua attaches a new buffer to the running server",
      eok and attached and #all == 1 and vim.tbl_contains(resolved.root_markers or {}, '.agentls.json'),
      string.format('enable %s %s, attached %s, %d agentls clients, root_markers %s', tostring(eok), tostring(eerr),
        tostring(attached), #all, vim.inspect(resolved.root_markers)))
    vim.cmd('bwipeout ' .. mbuf)
  else
    T.skip("vim.lsp.enable('agentls')", 'Neovim < 0.11 has no vim.lsp.enable')
  end
end

return M
