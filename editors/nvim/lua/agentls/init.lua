-- agentls for Neovim: starts (or finds) the agentls language server, runs
-- agent tasks through workspace/executeCommand, renders the agentls/event
-- stream into a scratch buffer and keeps task progress for the statusline.
-- Edits, diagnostics and code actions go through Neovim's own LSP client,
-- so the server needs nothing from the plugin to change a buffer.
-- Over 400 lines: it is the plugin's one public module (config, tasks,
-- commands); the conversation, review, pickers and health live beside it.
local compat = require('agentls.compat')
local stream = require('agentls.stream')
local attention = require('agentls.attention')

local M = {}

local defaults = {
  cmd = { 'agentls' },
  cmd_env = nil,
  -- When cmd is the default and agentls is not on PATH, the first start
  -- offers to download it from the releases (agentls.fetch): { url = …,
  -- dir = … } to change where from and where to; false: never offer.
  fetch = {},
  -- The first directory upward holding one of these is the workspace root;
  -- without one, the current directory.
  root_markers = { '.agentls.json', '.git', 'go.mod', 'package.json', 'Makefile' },
  init_options = nil, -- sent as initializationOptions: { llm = {...}, agent = {...}, verify = {...} }
  settings = nil, -- sent as workspace/didChangeConfiguration: { agentls = {...} }
  -- Attach to every file buffer (or those of these filetypes). false: the
  -- server is started elsewhere (lspconfig, vim.lsp.start) under the name
  -- "agentls"; the commands, stream and statusline work the same.
  autostart = true,
  filetypes = nil,
  review = nil, -- :AgentRun's review flag (nil: the server's agent.review)
  model = nil, -- llm.model for the next tasks (set by :AgentModel; nil: the server's)
  -- Save files the user did not have open when an agent edit lands in them
  -- (open buffers stay unsaved, as with any edit).
  save_unopened = true,
  -- Hide an agentls diagnostic that repeats another source's message on the
  -- same line (a compile error gopls already shows).
  dedupe_diagnostics = true,
  keymaps = false, -- true: the default <leader>a… maps (see :help agentls-keymaps), or a table of them
  chat = { input_height = 5, send_key = '<C-s>' },
  stream = {
    open = 'split', -- 'split', 'float' or false: where a task's stream shows up
    height = 12,
    width = 0.6, -- float only, fraction of the columns
    focus = false,
  },
  -- Shown by statusline() while no task runs ('' hides it).
  idle_text = '',
}

M.config = vim.deepcopy(defaults)

local tasks = {} -- taskId -> { id, task, review, status, state, message, result, usage }
local order = {} -- taskIds, oldest first
local progress = {} -- progress token -> { title, message, percentage, done, taskId }
local started_roots = {} -- root -> client id (0.7, where vim.lsp.start is missing)
local handlers_installed = false
local info_for = {} -- client id -> agentls.info's answer

M.last_event = nil

local function notify(msg, level)
  vim.notify('agentls: ' .. msg, level or vim.log.levels.INFO)
end

local function task_of(id)
  local t = tasks[id]
  if not t then
    t = { id = id, status = 'queued' }
    tasks[id] = t
    table.insert(order, id)
  end
  return t
end

-- latest returns the newest tracked task matching pred.
local function latest(pred)
  for i = #order, 1, -1 do
    local t = tasks[order[i]]
    if not pred or pred(t) then
      return t
    end
  end
end

local function running(t)
  return t.status == 'queued' or t.status == 'running'
end

function M.tasks()
  local out = {}
  for _, id in ipairs(order) do
    table.insert(out, tasks[id])
  end
  return out
end

-- client returns the agentls client attached to bufnr, else any running one.
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local c = compat.get_clients({ name = 'agentls', bufnr = bufnr })[1]
  if c then
    return c
  end
  return compat.get_clients({ name = 'agentls' })[1]
end

-- exec runs one agentls command; cb(err, result) runs on the main loop.
function M.exec(command, args, cb, bufnr, via)
  -- A command about a task goes to the server that runs it, not to one a
  -- buffer of another root (a review document) started.
  local owner = type(args) == 'table' and args.taskId and tasks[args.taskId]
  local client = via or owner and owner.client_id and vim.lsp.get_client_by_id(owner.client_id) or M.client(bufnr)
  if not client and M.config.autostart and M._setup_done then
    -- A server setup() just started: 0.7 lists a client only once it is
    -- initialized.
    vim.wait(10000, function()
      client = M.client(bufnr)
      return client ~= nil
    end, 20)
  end
  if not client then
    local msg = 'no agentls server is running for this buffer (see :help agentls-setup)'
    if cb then
      cb({ message = msg }, nil)
    else
      notify(msg, vim.log.levels.ERROR)
    end
    return
  end
  if args == nil or next(args) == nil then
    args = vim.empty_dict()
  end
  if not client.initialized then
    vim.wait(10000, function()
      return client.initialized == true or compat.is_stopped(client)
    end, 20)
  end
  compat.request(client, 'workspace/executeCommand', { command = command, arguments = { args } }, function(err, result)
    if cb then
      cb(err, result)
    elseif err then
      notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
  end, bufnr)
end

local function refresh_statusline()
  pcall(vim.cmd, 'redrawstatus!')
  compat.user_event('AgentlsProgress', { text = M.statusline() })
end

-- on_event handles one agentls/event notification.
function M.on_event(ev, client_id)
  if type(ev) ~= 'table' then
    return
  end
  M.last_event = ev
  local t = task_of(ev.taskId or '?')
  t.client_id = client_id or t.client_id
  if type(ev.step) == 'number' and ev.step > (t.step or 0) then
    t.step = ev.step
  end
  if type(ev.task) == 'string' and not t.task then
    t.task = ev.task
  end
  if ev.kind == 'state' then
    t.state = ev.to
    if t.status == 'queued' then
      t.status = 'running'
    end
  elseif ev.kind == 'toolCall' then
    t.message = stream.short(ev.call)
  elseif ev.kind == 'usage' then
    t.usage = ev.taskUsage or ev.usage
  elseif ev.kind == 'end' then
    t.result = ev.result or {}
    t.status = t.result.status or 'ok'
    t.reason = t.result.reason
    t.state = 'idle'
    t.usage = t.result.usage or t.usage
  end
  local ok, err = pcall(stream.render, ev)
  if not ok then
    notify('rendering an event failed: ' .. tostring(err), vim.log.levels.WARN)
  end
  if ev.kind == 'end' then
    -- After the stream has its end line: where you are, a notice.
    attention.ended(t.id, ev)
  end
  compat.user_event('AgentlsEvent', ev)
  refresh_statusline()
end

-- on_progress records a $/progress notification of an agentls client.
function M.on_progress(client_id, params)
  local client = vim.lsp.get_client_by_id(client_id)
  if not client or client.name ~= 'agentls' or type(params) ~= 'table' then
    return
  end
  local v = params.value
  if type(v) ~= 'table' then
    return
  end
  local key = tostring(params.token)
  local p = progress[key] or {}
  progress[key] = p
  if v.kind == 'begin' then
    p.title, p.message, p.done = v.title, v.message, false
    p.seq = (M._progress_seq or 0) + 1
    M._progress_seq = p.seq
  elseif v.kind == 'report' then
    p.message = v.message or p.message
  elseif v.kind == 'end' then
    p.message, p.done = v.message or p.message, true
  end
  p.percentage = v.percentage or p.percentage
  refresh_statusline()
end

-- statusline is for 'statusline' / lualine: "agentls t2: read_file a.go"
-- while a task runs, else config.idle_text.
function M.statusline()
  -- The end event can beat the progress end: a task that ended hides its
  -- progress at once.
  local t = latest(running)
  local heed = attention.statusline_part()
  if not t then
    if heed ~= '' then
      return 'agentls' .. heed
    end
    return M.config.idle_text or ''
  end
  local best
  for _, p in pairs(progress) do
    if not p.done and (not best or p.seq > best.seq) then
      best = p
    end
  end
  local what = best and (best.message or best.title or '…') or (t.message or t.state or t.status)
  return string.format('agentls%s %s%s: %s', heed, t.id, M.autonomy(t), what)
end

-- autonomy is the status item's part that says how commands are approved
-- and what is left of the task's budget: " [sandboxed · 27 steps left ·
-- $0.40 left]".
function M.autonomy(t)
  local c = M.client()
  local i = c and info_for[c.id] or {}
  if not i.approval then
    return ''
  end
  local parts = { i.approval }
  if (i.maxSteps or 0) > 0 then
    table.insert(parts, string.format('%d steps left', math.max(0, i.maxSteps - (t.step or 0))))
  end
  if (i.maxCostUSD or 0) > 0 then
    local spent = stream.cost(t.usage, nil) or 0
    table.insert(parts, string.format('$%.2f left', math.max(0, i.maxCostUSD - spent)))
  end
  return ' [' .. table.concat(parts, ' · ') .. ']'
end

local function install_handlers()
  if handlers_installed then
    return
  end
  handlers_installed = true
  vim.lsp.handlers['agentls/event'] = function(_, params, ctx)
    M.on_event(params, ctx and ctx.client_id)
  end
  -- A question of agentls's says which task waits on you, where you are;
  -- Neovim's own handler still asks it.
  vim.lsp.handlers['window/showMessageRequest'] = attention.wrap(vim.lsp.handlers['window/showMessageRequest'])
  attention.install()
  if vim.fn.exists('##LspProgress') == 1 then
    local group = vim.api.nvim_create_augroup('agentls_progress', { clear = true })
    vim.api.nvim_create_autocmd('LspProgress', {
      group = group,
      callback = function(a)
        if a.data then
          M.on_progress(a.data.client_id, a.data.params or a.data.result)
        end
      end,
    })
  else
    -- 0.7: no LspProgress event; wrap the default handler instead.
    local orig = vim.lsp.handlers['$/progress']
    vim.lsp.handlers['$/progress'] = function(err, result, ctx, config)
      M.on_progress(ctx.client_id, result)
      if orig then
        return orig(err, result, ctx, config)
      end
    end
  end
end

-- capabilities are Neovim's client capabilities plus what the plugin
-- understands of agentls's own: a question names the task that asks
-- (taskId). A vim.lsp.start set-up passes them too (see the README).
function M.capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  caps.experimental = vim.tbl_deep_extend('force', caps.experimental or {}, { agentls = { questionTaskId = true } })
  return caps
end

local function client_config(root, cmd)
  local c = M.config
  return {
    name = 'agentls',
    cmd = cmd,
    cmd_env = c.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    init_options = c.init_options,
    settings = c.settings or {},
    capabilities = M.capabilities(),
  }
end

-- attach starts the server for bufnr's workspace, or reuses it, and attaches.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.api.nvim_buf_get_option(bufnr, 'buftype') ~= '' then
    return
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return
  end
  local fts = M.config.filetypes
  if fts and not vim.tbl_contains(fts, vim.api.nvim_buf_get_option(bufnr, 'filetype')) then
    return
  end
  local root = compat.find_root(name, M.config.root_markers) or vim.loop.cwd()
  local cmd = require('agentls.fetch').resolve(M.config.cmd, M.config.fetch)
  if not cmd then
    return
  end
  if vim.lsp.start then
    return vim.lsp.start(client_config(root, cmd), { bufnr = bufnr })
  end
  local id = started_roots[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or compat.is_stopped(client) then
    id = vim.lsp.start_client(client_config(root, cmd))
    if not id then
      notify('could not start ' .. table.concat(M.config.cmd, ' '), vim.log.levels.ERROR)
      return
    end
    started_roots[root] = id
  end
  vim.lsp.buf_attach_client(bufnr, id)
  return id
end

-- selection_range turns a command's line range (and the visual marks, when
-- they match it) into an LSP range in the client's position encoding.
local function selection_range(bufnr, line1, line2, encoding)
  local s = vim.api.nvim_buf_get_mark(bufnr, '<')
  local e = vim.api.nvim_buf_get_mark(bufnr, '>')
  local charwise = vim.fn.visualmode() == 'v' and s[1] == line1 and e[1] == line2
  local scol, ecol = 0, math.huge
  if charwise then
    scol = s[2]
    -- '> marks the first byte of the last character; the range ends after it.
    local line = vim.api.nvim_buf_get_lines(bufnr, line2 - 1, line2, false)[1] or ''
    local ch = vim.fn.strpart(line, e[2], 1, true) -- the whole character
    ecol = e[2] + math.max(#ch, 1)
  end
  return {
    start = compat.position(bufnr, line1 - 1, scol, encoding),
    ['end'] = compat.position(bufnr, line2 - 1, ecol, encoding),
  }
end

-- info asks the server once per client for the model's context window and
-- prices, for the task line's context meter and cost.
function M.refresh_info(cb)
  local c = M.client()
  if not c then
    return cb and cb(nil)
  end
  M.exec('agentls.info', { model = M.config.model }, function(err, res)
    if not err and res then
      info_for[c.id] = res
      stream.set_info(res)
    end
    if cb then
      cb(res)
    end
  end)
end

-- run starts a task. opts: bufnr, range (LSP), review, isolation
-- ('worktree': in a worktree of its own, whatever agent.isolation says),
-- session (continue that session: agentls.continue), model,
-- on_start(result).

-- in_workspace: whether the file name is a file under one of the client's
-- roots (its root_dir, else its workspace folders; a start-up through
-- vim.lsp.start may set only the folders). A name with a scheme
-- (agentls://…) is never one.
local function has_workspace(c)
  return c.config.root_dir ~= nil or (c.workspace_folders ~= nil and #c.workspace_folders > 0)
end

local function in_workspace(c, name)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return false
  end
  local roots = {}
  if c and c.config and c.config.root_dir then
    roots[#roots + 1] = c.config.root_dir
  end
  for _, f in ipairs((c and c.workspace_folders) or {}) do
    roots[#roots + 1] = vim.uri_to_fname(f.uri)
  end
  for _, r in ipairs(roots) do
    if vim.startswith(name, r .. '/') then
      return true
    end
  end
  return false
end
function M.run(task, opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local args = { task = task, session = opts.session, range = opts.range, model = opts.model or M.config.model,
    isolation = opts.isolation }
  local c = M.client(bufnr)
  if c and not info_for[c.id] then
    info_for[c.id] = {}
    M.refresh_info()
  end
  if opts.review ~= nil then
    args.review = opts.review
  elseif M.config.review ~= nil then
    args.review = M.config.review
  end
  -- Only a file of the workspace is editor context (not a transcript, nor
  -- a review document of agentls's state directory). From any other
  -- buffer the task goes to a server that has a workspace: a set-up that
  -- starts agentls for every buffer (vim.lsp.start in a FileType
  -- autocmd) gives a review document a server of its own, without one.
  if vim.api.nvim_buf_get_option(bufnr, 'buftype') == ''
    and in_workspace(c, vim.api.nvim_buf_get_name(bufnr)) then
    args.uri = vim.uri_from_bufnr(bufnr)
  elseif c and not has_workspace(c) then
    for _, o in ipairs(compat.get_clients({ name = 'agentls' })) do
      if has_workspace(o) then
        c = o
        break
      end
    end
  end
  local so = M.config.stream
  if so and so.open then
    stream.open({ kind = so.open, height = so.height, width = so.width, focus = so.focus })
  end
  -- Before the request: the task's first events may beat its response.
  local title = (opts.session and '↳ ' or '') .. task:gsub('\n', ' ⏎ ')
    .. (args.isolation == 'worktree' and '  [worktree]' or (args.review and '  [review]' or ''))
  local header = stream.begin_task(title, task)
  M.exec(opts.session and 'agentls.continue' or 'agentls.run', args, function(err, res)
    if err then
      stream.drop(header)
      stream.line('  failed: ' .. (err.message or vim.inspect(err)))
      notify('run failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      if opts.on_start then
        opts.on_start(nil, err)
      end
      return
    end
    stream.claim(res.taskId, header)
    local t = task_of(res.taskId)
    t.task, t.session, t.review = task, res.session, args.review == true
    t.isolation = args.isolation
    if t.status == 'queued' then
      t.status = 'running'
    end
    refresh_statusline()
    if opts.on_start then
      opts.on_start(res)
    end
  end, bufnr, c)
end

-- verify runs the project's checks alone, no model (agentls.verify): a
-- task like any other, whose failures land in the diagnostics.
function M.verify(opts)
  opts = opts or {}
  local so = M.config.stream
  if so and so.open then
    stream.open({ kind = so.open, height = so.height, width = so.width, focus = so.focus })
  end
  local header = stream.begin_task("verify: the project's checks")
  M.exec('agentls.verify', {}, function(err, res)
    if err then
      stream.line('  failed: ' .. (err.message or vim.inspect(err)))
      notify('verify failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return opts.on_start and opts.on_start(nil, err)
    end
    stream.claim(res.taskId, header)
    local t = task_of(res.taskId)
    t.task = 'verify'
    if t.status == 'queued' then
      t.status = 'running'
    end
    refresh_statusline()
    if opts.on_start then
      opts.on_start(res)
    end
  end)
end

-- compose opens a scratch buffer for a task of several lines: :w sends
-- it (about the file it was opened from) and closes the buffer; :q! drops
-- it. opts: review.
function M.compose(opts)
  opts = opts or {}
  local from = vim.api.nvim_get_current_buf()
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_name(buf, 'agentls://compose/' .. buf)
  vim.api.nvim_buf_set_option(buf, 'buftype', 'acwrite')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  require('agentls.compat').markdown(buf)
  vim.api.nvim_win_set_height(0, 8)
  vim.api.nvim_create_autocmd('BufWriteCmd', {
    buffer = buf,
    callback = function()
      local task = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n')
      vim.api.nvim_buf_set_option(buf, 'modified', false)
      if task:match('%S') then
        M.run(task, { bufnr = vim.api.nvim_buf_is_valid(from) and from or nil, review = opts.review, isolation = opts.isolation })
      end
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(buf) then
          vim.api.nvim_buf_delete(buf, { force = true })
        end
      end)
    end,
  })
  notify('write the task (several lines if you like); :w sends it, :q! drops it', vim.log.levels.INFO)
  return buf
end

-- cancel cancels a task: the given one, else the newest running one.
function M.cancel(task_id, cb)
  local args = {}
  if task_id and task_id ~= '' then
    args.taskId = task_id
  else
    local t = latest(running)
    args.taskId = t and t.id or nil
  end
  M.exec('agentls.cancel', args, function(err, res)
    if err then
      notify('cancel: ' .. (err.message or ''), vim.log.levels.ERROR)
    elseif not res.cancelled then
      notify('no running task to cancel')
    else
      notify('cancelling ' .. (res.taskId or args.taskId or 'the newest task'))
    end
    if cb then
      cb(err, res)
    end
  end)
end

local function status_line(t)
  local s = string.format('%s %-9s %s', t.taskId, stream.status_word(t), t.task or '')
  if t.filesChanged and #t.filesChanged > 0 then
    s = s .. string.format('  [%d file%s]', #t.filesChanged, #t.filesChanged == 1 and '' or 's')
  end
  if t.usage then
    s = s .. '  tokens ' .. stream.usage_text(t.usage)
  end
  if t.summary and t.summary ~= '' then
    s = s .. '\n    ' .. t.summary:gsub('\n', ' ')
  elseif t.error and t.error ~= '' then
    s = s .. '\n    error: ' .. t.error
  end
  if t.transcript then
    s = s .. '\n    transcript: ' .. t.transcript
  end
  return s
end

-- status asks the server about one task or all; cb(err, result) or a notice.
function M.status(task_id, cb)
  local args = {}
  if task_id and task_id ~= '' then
    args.taskId = task_id
  end
  M.exec('agentls.status', args, function(err, res)
    if cb then
      return cb(err, res)
    end
    if err then
      return notify('status: ' .. (err.message or ''), vim.log.levels.ERROR)
    end
    local list = res.tasks or { res }
    if #list == 0 then
      return notify('no tasks yet')
    end
    local lines = {}
    for _, t in ipairs(list) do
      table.insert(lines, status_line(t))
    end
    notify('\n' .. table.concat(lines, '\n'))
  end)
end

-- target parses :AgentAccept / :AgentReject / :AgentUndo arguments: a task
-- id, and "%" or a path for one file (none: every file of the task).
local function target(fargs, want_file)
  local id, uri
  for _, a in ipairs(fargs or {}) do
    if tasks[a] then
      id = a
    elseif want_file and a == '%' then
      uri = vim.uri_from_bufnr(vim.api.nvim_get_current_buf())
    elseif want_file then
      uri = vim.uri_from_fname(vim.fn.fnamemodify(a, ':p'))
    else
      id = a
    end
  end
  return id, uri
end

local function finished_review(x)
  return x.review and not running(x)
end

local function finished(x)
  return not running(x)
end

-- task_command makes accept / reject / undo: opts.taskId defaults to the
-- newest task pick() likes; cb(err, result) or a notice.
local function task_command(command, pick, with_uri)
  return function(opts, cb)
    opts = opts or {}
    local id = opts.taskId
    if not id then
      local t = latest(pick) or latest(finished)
      id = t and t.id
    end
    if not id then
      local msg = 'no task for ' .. command
      if cb then
        return cb({ message = msg })
      end
      return notify(msg, vim.log.levels.WARN)
    end
    local args = { taskId = id }
    if with_uri then
      args.uri = opts.uri
    end
    M.exec(command, args, function(err, res)
      if not err and command ~= 'agentls.undo' then
        M.changed()
      end
      if cb then
        return cb(err, res)
      end
      if err then
        notify(command .. ': ' .. (err.message or ''), vim.log.levels.ERROR)
      else
        notify(M.answer_text(id, res))
      end
    end)
  end
end

local function changes(n)
  return string.format('%d change%s', n, n == 1 and '' or 's')
end

-- answer_text is agentls.accept's or agentls.reject's answer in words:
-- "t3: accepted 2 changes", "t3: rejected 1 change".
function M.answer_text(id, res)
  if type(res) ~= 'table' then
    return id .. ': done'
  end
  local parts = {}
  if type(res.accepted) == 'number' then
    table.insert(parts, 'accepted ' .. changes(res.accepted))
  end
  if type(res.rejected) == 'number' then
    table.insert(parts, 'rejected ' .. changes(res.rejected))
  end
  if res.applied == false then
    table.insert(parts, 'nothing applied')
  end
  if type(res.conflicts) == 'table' and #res.conflicts > 0 then
    table.insert(parts, changes(#res.conflicts) .. ' conflict with your edits and stay proposed')
  end
  if type(res.leftOut) == 'table' and #res.leftOut > 0 then
    local names = {}
    for _, u in ipairs(res.leftOut) do
      local ok, p = pcall(vim.uri_to_fname, u)
      table.insert(names, ok and vim.fn.fnamemodify(p, ':.') or tostring(u))
    end
    table.insert(parts, 'left out: ' .. table.concat(names, ', '))
  end
  if #parts == 0 then
    table.insert(parts, 'done')
  end
  return id .. ': ' .. table.concat(parts, '; ')
end

local function set_lines(b, lines)
  local was = vim.api.nvim_buf_get_option(b, 'modifiable')
  vim.api.nvim_buf_set_option(b, 'modifiable', true)
  vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
  vim.api.nvim_buf_set_option(b, 'modifiable', was)
  vim.api.nvim_buf_set_option(b, 'modified', false)
end

local function text_of(uri)
  local b = vim.uri_to_bufnr(uri)
  if vim.api.nvim_buf_is_loaded(b) then
    return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n') .. '\n'
  end
  local f = io.open(vim.uri_to_fname(uri))
  local s = f and f:read('*a') or ''
  if f then
    f:close()
  end
  return s
end

-- redraw_review_doc writes again, into buffer b, the diff document of
-- review task id (the server's reviews/<id>-….diff) from the proposals
-- still open: what was accepted, rejected or merged is gone from it.
function M.redraw_review_doc(b, id, cb)
  M.exec('agentls.proposal', { taskId = id }, function(err, res)
    local uris = (not err and res and res.uris) or {}
    local head = { '# agentls task ' .. id .. ': nothing left to review (accepted, rejected or merged)' }
    if #uris == 0 then
      if vim.api.nvim_buf_is_valid(b) then
        set_lines(b, head)
      end
      return cb and cb()
    end
    head = { '# agentls task ' .. id .. ' still proposes these changes',
      '# accept or reject them with :AgentDiff to look, :AgentAccept / :AgentReject, or the code actions' }
    local parts, left = {}, #uris
    local diff = (vim.text and vim.text.diff) or vim.diff
    for i, u in ipairs(uris) do
      M.exec('agentls.proposal', { taskId = id, uri = u }, function(e2, r2)
        if not e2 and r2 then
          local rel = vim.fn.fnamemodify(vim.uri_to_fname(u), ':.')
          parts[i] = '--- a/' .. rel .. '\n+++ b/' .. rel .. '\n' .. diff(text_of(u), r2.proposed or '')
        end
        left = left - 1
        if left == 0 and vim.api.nvim_buf_is_valid(b) then
          for j = 1, #uris do
            for _, l in ipairs(vim.split(vim.trim(parts[j] or ''), '\n', { plain = true })) do
              table.insert(head, l)
            end
          end
          set_lines(b, head)
          if cb then
            cb()
          end
        end
      end)
    end
  end)
end

-- changed redraws what shows proposals after an accept, reject, merge or
-- discard: the diff splits (:AgentDiff), the review tasks' diff
-- documents and the applied tasks' diffs, so no view shows what is gone.
function M.changed()
  local uris = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      local p = vim.b[b].agentls_proposal
      if p and p.uri then
        uris[p.uri] = true
      end
      local id = vim.api.nvim_buf_get_name(b):match('/reviews/(t%d+)%-[^/]*%.diff$')
      if id then
        M.redraw_review_doc(b, id)
      end
    end
  end
  for u in pairs(uris) do
    require('agentls.review').refresh(u)
  end
  require('agentls.applied').refresh()
end

-- accept / reject: opts { taskId?, uri? } (no uri: every file of the task);
-- the task defaults to the newest finished review task.
M.accept = task_command('agentls.accept', finished_review, true)
M.reject = task_command('agentls.reject', finished_review, true)
-- undo_candidates are the tasks agentls.undo can revert now (the server's
-- undoable), newest first; a task with no changes is never one.
function M.undo_candidates(list)
  local out = {}
  for _, t in ipairs(list or {}) do
    if t.undoable == true then
      table.insert(out, 1, t)
    end
  end
  return out
end

local function undo_notice(id, err, res)
  if err then
    return notify('could not undo ' .. id .. ': ' .. (err.message or 'no answer'), vim.log.levels.WARN)
  end
  local where = {}
  for _, c in ipairs(res.conflicts or {}) do
    local ok, p = pcall(vim.uri_to_fname, c.uri or '')
    table.insert(where, string.format('%s:%d', ok and vim.fn.fnamemodify(p, ':.') or '?', (c.line or 0) + 1))
  end
  if res.applied and #where > 0 then
    notify('undid ' .. id .. ' except where the files changed since: ' .. table.concat(where, ', '), vim.log.levels.WARN)
  elseif res.applied then
    notify('undid ' .. id)
  else
    notify('did not undo ' .. id .. ': ' .. (res.reason or table.concat(where, ', ')), vim.log.levels.WARN)
  end
end

-- undo reverts what a task applied. opts.taskId names the task; without
-- it the user picks one of the tasks with changes to undo, newest first
-- (vim.ui.select, kind "agentls.undo"). The server's refusal is a notice
-- with its reason. cb(err, result) instead of the notice when given.
function M.undo(opts, cb)
  opts = opts or {}
  local function go(id)
    M.exec('agentls.undo', { taskId = id }, function(err, res)
      if not err then
        -- The diff view of what it applied shows what is left after it.
        require('agentls.applied').refresh(id)
      end
      if cb then
        return cb(err, res)
      end
      undo_notice(id, err, res)
    end)
  end
  if opts.taskId then
    return go(opts.taskId)
  end
  M.status(nil, function(err, res)
    if err then
      return cb and cb(err) or notify('undo: ' .. (err.message or ''), vim.log.levels.WARN)
    end
    local list = M.undo_candidates(res.tasks)
    if #list == 0 then
      local r = { applied = false, conflicts = {}, reason = 'no task has changes to undo' }
      return cb and cb(nil, r) or notify(r.reason)
    end
    vim.ui.select(list, {
      prompt = 'agentls: undo which task?',
      kind = 'agentls.undo',
      format_item = require('agentls.pickers').label,
    }, function(t)
      if t then
        go(t.taskId)
      end
    end)
  end)
end

-- open_transcript opens the Markdown transcript of a task (default: the
-- newest) in a split; cb(err, path) instead when given.
function M.open_transcript(task_id, cb)
  if not task_id or task_id == '' then
    local t = latest()
    task_id = t and t.id
  end
  if not task_id then
    return notify('no task yet', vim.log.levels.WARN)
  end
  M.status(task_id, function(err, res)
    local path = not err and res and res.transcript and vim.uri_to_fname(res.transcript)
    if cb then
      return cb(err or (not path and { message = 'no transcript for ' .. task_id }), path)
    end
    if not path then
      return notify('no transcript for ' .. task_id .. (err and (': ' .. (err.message or '')) or ''), vim.log.levels.WARN)
    end
    vim.cmd('split ' .. vim.fn.fnameescape(path))
  end)
end

M.open_stream = function()
  local so = M.config.stream or {}
  return stream.open({ kind = so.open or 'split', height = so.height, width = so.width, focus = so.focus })
end
M.close_stream = stream.close
M.toggle_stream = function()
  if stream.is_open() then
    stream.close()
  else
    M.open_stream()
  end
end
M.stream_lines = stream.lines
M.stream_bufnr = stream.bufnr

M.status_word = stream.status_word
-- waiting is the question task id waits on you to answer, if any.
M.waiting = attention.waiting

-- command dispatches the user commands plugin/agentls.lua defines. They
-- work before setup(): the first one sets the plugin up with defaults.
function M.command(name, o)
  if not M._setup_done then
    M.setup({})
  end
  if name == 'run' or name == 'runreview' then
    local bufnr = vim.api.nvim_get_current_buf()
    local range
    if o.range and o.range > 0 then
      local c = M.client(bufnr)
      range = selection_range(bufnr, o.line1, o.line2, c and c.offset_encoding or 'utf-16')
    end
    local review, isolation = nil, nil
    if name == 'runreview' then
      review = true
    elseif o.bang then
      -- :AgentRun! works in a worktree of its own: your files are not
      -- touched, its change comes back for review.
      isolation = 'worktree'
    end
    local function go(task)
      if task and task:match('%S') then
        M.run(task, { bufnr = bufnr, range = range, review = review, isolation = isolation })
      end
    end
    if o.args ~= '' then
      go(o.args)
    else
      vim.ui.input({ prompt = 'agentls task (:AgentCompose for several lines): ' }, go)
    end
  elseif name == 'compose' then
    M.compose({ isolation = o.bang and 'worktree' or nil })
  elseif name == 'cancel' then
    M.cancel(o.args)
  elseif name == 'verify' then
    M.verify()
  elseif name == 'status' then
    M.status(o.args)
  elseif name == 'accept' or name == 'reject' then
    local id, uri = target(o.fargs, true)
    M[name]({ taskId = id, uri = uri })
  elseif name == 'undo' then
    M.undo({ taskId = o.args ~= '' and o.args or nil })
  elseif name == 'rewind' then
    require('agentls.rewind').command(o)
  elseif name == 'worktrees' then
    require('agentls.worktrees').command(o)
  elseif name == 'delegate' then
    local function go(task)
      if task and task:match('%S') then
        require('agentls.jobs').delegate(task)
      end
    end
    if o.args ~= '' then
      go(o.args)
    else
      vim.ui.input({ prompt = 'agentls: delegate which task? ' }, go)
    end
  elseif name == 'jobs' then
    require('agentls.jobs').command(o)
  elseif name == 'transcript' then
    M.open_transcript(o.args)
  elseif name == 'stream' then
    M.toggle_stream()
  elseif name == 'chat' then
    -- The cursor goes to the input: what the user types next is the
    -- follow-up, never text in the code window.
    require('agentls.chat').open({ focus = true })
  elseif name == 'continue' then
    if o.args ~= '' then
      require('agentls.chat').send(o.args)
    else
      require('agentls.chat').open({ focus = true })
    end
  elseif name == 'history' then
    require('agentls.pickers').history()
  elseif name == 'model' then
    if o.args ~= '' then
      M.set_model(o.args)
    else
      require('agentls.pickers').model()
    end
  elseif name == 'diff' then
    local id = o.args ~= '' and o.args or nil
    local t = id and tasks[id] or latest(function(x)
      return x.result ~= nil
    end)
    if t and not t.review then
      -- An applied task: what it changed (agentls.diff).
      require('agentls.applied').open(t.id)
    else
      require('agentls.review').open(id)
    end
  elseif name == 'commands' then
    require('agentls.pickers').commands(o.args)
  end
end

-- set_model sets llm.model for the next tasks (nil or '': the server's).
function M.set_model(name)
  M.config.model = (name ~= '' and name) or nil
  M.refresh_info()
  notify('model for the next tasks: ' .. (M.config.model or "the server's default"))
end

-- latest_task is the newest task the plugin knows (pred filters).
function M.latest_task(pred)
  return latest(pred)
end

-- setup configures the plugin and, with autostart, attaches the server to
-- every file buffer (those open now and those opened later).
function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  M._setup_done = true
  install_handlers()
  require('agentls.fixups').install(M.config)
  if M.config.keymaps then
    require('agentls.keymaps').set(M.config.keymaps)
  end
  if not M.config.autostart then
    return
  end
  local group = vim.api.nvim_create_augroup('agentls_attach', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
    group = group,
    callback = function(a)
      -- After the FileType autocmds, so filetypes filters see the type.
      vim.schedule(function()
        if vim.api.nvim_buf_is_valid(a.buf) then
          M.attach(a.buf)
        end
      end)
    end,
  })
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      M.attach(b)
    end
  end
end

-- handlers are for set-ups that start the client themselves and pass
-- handlers per client (lspconfig's `handlers`); setup() also installs them
-- globally, so this is only needed where globals are overridden.
function M.handlers()
  install_handlers()
  return {
    ['agentls/event'] = vim.lsp.handlers['agentls/event'],
    ['window/showMessageRequest'] = vim.lsp.handlers['window/showMessageRequest'],
  }
end

return M
