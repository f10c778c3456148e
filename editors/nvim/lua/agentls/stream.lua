-- The agentls stream buffer: one scratch buffer, shown in a split or a
-- floating window, that the agentls/event notifications are rendered into
-- as they arrive. Text deltas continue the current line; everything else
-- (tool calls, results, checks, usage, task end) gets a line of its own.
local M = {}

local buf = nil
local win = nil
-- text_open is true while the last line is a model text line still being
-- streamed, so the next delta joins it instead of starting a new line.
local text_open = false

local function valid_buf()
  return buf ~= nil and vim.api.nvim_buf_is_valid(buf)
end

function M.bufnr()
  if valid_buf() then
    return buf
  end
  buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(buf, 'agentls://stream')
  vim.api.nvim_buf_set_option(buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(buf, 'swapfile', false)
  require('agentls.compat').markdown(buf) -- the model writes Markdown
  -- Markdown's syntax draws a lone "_" (run_command) as an error.
  vim.api.nvim_buf_call(buf, function()
    vim.cmd('silent! syntax clear markdownError')
  end)
  vim.b[buf].agentls_stream = true
  vim.api.nvim_buf_set_option(buf, 'modifiable', false)
  text_open = false
  return buf
end

function M.lines()
  if not valid_buf() then
    return {}
  end
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

function M.is_open()
  return win ~= nil and vim.api.nvim_win_is_valid(win)
end

function M.winid()
  if M.is_open() then
    return win
  end
end

-- follow keeps every window showing the stream scrolled to its end.
local function follow()
  if not valid_buf() then
    return
  end
  local n = vim.api.nvim_buf_line_count(buf)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(w) == buf then
      pcall(vim.api.nvim_win_set_cursor, w, { n, 0 })
    end
  end
end

local function with_modifiable(f)
  local b = M.bufnr()
  vim.api.nvim_buf_set_option(b, 'modifiable', true)
  local ok, err = pcall(f, b)
  vim.api.nvim_buf_set_option(b, 'modifiable', false)
  if not ok then
    error(err)
  end
  follow()
end

local function is_empty(b)
  return vim.api.nvim_buf_line_count(b) == 1 and vim.api.nvim_buf_get_lines(b, 0, 1, false)[1] == ''
end

-- set_row replaces one line (0-based) in place: task lines and tool lines
-- are updated as their totals and results arrive.
local function set_row(row, text)
  if not valid_buf() or row >= vim.api.nvim_buf_line_count(buf) then
    return
  end
  local was = text_open
  with_modifiable(function(b)
    vim.api.nvim_buf_set_lines(b, row, row + 1, false, { text })
  end)
  text_open = was
end

-- line adds whole lines after the current content and returns the
-- 0-based row of the first.
function M.line(...)
  local new = {}
  for _, l in ipairs({ ... }) do
    for part in (l .. '\n'):gmatch('(.-)\n') do
      table.insert(new, part)
    end
  end
  local row
  with_modifiable(function(b)
    if is_empty(b) then
      row = 0
      vim.api.nvim_buf_set_lines(b, 0, 1, false, new)
    else
      row = vim.api.nvim_buf_line_count(b)
      vim.api.nvim_buf_set_lines(b, -1, -1, false, new)
    end
  end)
  text_open = false
  return row
end

-- text streams a model text delta: it continues the open text line.
function M.text(delta)
  if delta == nil or delta == '' then
    return
  end
  local parts = vim.split(delta, '\n', { plain = true })
  with_modifiable(function(b)
    if not text_open then
      if is_empty(b) then
        vim.api.nvim_buf_set_lines(b, 0, 1, false, { '' })
      else
        vim.api.nvim_buf_set_lines(b, -1, -1, false, { '' })
      end
    end
    local last = vim.api.nvim_buf_line_count(b)
    local cur = vim.api.nvim_buf_get_lines(b, last - 1, last, false)[1] or ''
    parts[1] = cur .. parts[1]
    vim.api.nvim_buf_set_lines(b, last - 1, last, false, parts)
  end)
  text_open = true
end

-- open shows the stream: kind 'split' (a window below) or 'float'.
function M.open(opts)
  opts = opts or {}
  local b = M.bufnr()
  if M.is_open() then
    return win
  end
  local prev = vim.api.nvim_get_current_win()
  if opts.kind == 'float' then
    local cols, rows = vim.o.columns, vim.o.lines
    local width = math.max(20, math.floor(cols * (opts.width or 0.6)))
    local height = math.max(5, math.min(opts.height or 12, rows - 4))
    win = vim.api.nvim_open_win(b, opts.focus == true, {
      relative = 'editor',
      row = 1,
      col = math.max(0, cols - width - 2),
      width = width,
      height = height,
      style = 'minimal',
      border = 'rounded',
    })
  else
    vim.cmd('botright ' .. tostring(opts.height or 12) .. 'split')
    win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(win, b)
    if opts.focus ~= true then
      vim.api.nvim_set_current_win(prev)
    end
  end
  vim.api.nvim_win_set_option(win, 'wrap', true)
  vim.api.nvim_win_set_option(win, 'number', false)
  M.folds(win)
  follow()
  return win
end

-- folds folds a command's output under its line in window w: the lines
-- "    │ …" close, "zo" opens them.
function M.folds(w)
  vim.api.nvim_win_set_option(w, 'foldmethod', 'expr')
  vim.api.nvim_win_set_option(w, 'foldexpr', [[getline(v:lnum)=~'^    │'?1:0]])
  vim.api.nvim_win_set_option(w, 'foldlevel', 0)
  vim.api.nvim_win_set_option(w, 'foldenable', true)
end

function M.close()
  if M.is_open() then
    local others = 0
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(vim.api.nvim_win_get_tabpage(win))) do
      if w ~= win and vim.api.nvim_win_get_config(w).relative == '' then
        others = others + 1
      end
    end
    if others == 0 and vim.api.nvim_win_get_config(win).relative == '' then
      -- The last window (after :only): it cannot close (E444); it shows
      -- another buffer instead.
      vim.api.nvim_win_call(win, function()
        local alt = vim.fn.bufnr('#')
        if alt > 0 and alt ~= buf and vim.api.nvim_buf_is_loaded(alt) then
          vim.cmd('buffer ' .. alt)
        else
          vim.cmd('enew')
        end
      end)
    else
      vim.api.nvim_win_close(win, true)
    end
  end
  win = nil
end

function M.toggle(opts)
  if M.is_open() then
    M.close()
  else
    M.open(opts)
  end
end

local function usage_text(u)
  if type(u) ~= 'table' then
    return ''
  end
  return string.format('%d in / %d out', u.inputTokens or 0, u.outputTokens or 0)
end
M.usage_text = usage_text

-- info is what agentls.info said: contextTokens and prices, for the
-- context meter and the cost on the task line.
local info = {}
function M.set_info(i)
  info = i or {}
end

local function kilo(n)
  if n >= 1000 then
    return string.format('%dk', math.floor(n / 1000 + 0.5))
  end
  return tostring(n)
end

-- cost of a usage at the known prices; nil when no price is known.
function M.cost(u, result_cost)
  if result_cost and result_cost > 0 then
    return result_cost
  end
  if type(u) ~= 'table' or not ((info.priceInput or 0) > 0 or (info.priceOutput or 0) > 0) then
    return nil
  end
  return ((u.inputTokens or 0) * (info.priceInput or 0) + (u.outputTokens or 0) * (info.priceOutput or 0)) / 1e6
end

-- status_word is how a result reads: checks still failing is never "ok".
function M.status_word(r)
  r = r or {}
  if r.cancelled then
    return 'cancelled by you'
  elseif type(r.outcome) == 'string' and r.outcome ~= '' then
    -- agentls.status says when "ok" would mislead: undone, rejected,
    -- awaiting review.
    return r.outcome
  elseif r.reason == 'verifyFailed' or r.Reason == 'verifyFailed' then
    return 'done, checks failing'
  end
  return r.status or 'ended'
end

-- Task lines: one line per task, "▶ <task>", that carries the running
-- token total, the context meter and the cost instead of a usage line per
-- model call. begin_task writes it before the task has an id; the task's
-- first event claims it.
local task_rows = {} -- taskId -> { row, title, usage, last, cost, plan }
local pending = {} -- headers written before their task has an id, oldest first
-- last_id is the task whose line the stream wrote last: a line of another
-- task first gets a label naming it, so two tasks never mix unnamed.
local last_id = nil

function M.begin_task(title, prompt)
  local t = { row = M.line('▶ ' .. title), title = title, prompt = prompt }
  table.insert(pending, t)
  last_id = t
  return t
end

-- task_row is the header of task id. A task's first event names its
-- prompt (ev.task): it claims the header written for that prompt, not
-- whichever was written last.
local function task_row(id, prompt)
  local t = task_rows[id]
  if t or #pending == 0 then
    return t
  end
  local at = nil
  for i, p in ipairs(pending) do
    if prompt and p.prompt == prompt then
      at = i
      break
    end
  end
  if not at and (#pending == 1 or not prompt) then
    -- One header waits (a project command's prompt is expanded by the
    -- server), or the event names no prompt: the oldest header.
    at = 1
  end
  t = table.remove(pending, at)
  t.id = id
  task_rows[id] = t
  if last_id == t then
    last_id = id
  end
  return t
end

-- drop forgets header h: its task did not start.
function M.drop(h)
  for i, p in ipairs(pending) do
    if p == h then
      table.remove(pending, i)
      return
    end
  end
end

-- claim binds the header h (begin_task's) to task id, once the server
-- answered with its id.
function M.claim(id, h)
  if task_rows[id] then
    return task_rows[id]
  end
  for i, p in ipairs(pending) do
    if p == h then
      table.remove(pending, i)
      p.id = id
      task_rows[id] = p
      if last_id == p then
        last_id = id
      end
      return p
    end
  end
  return task_row(id)
end

local function task_text(t)
  local s = '▶ ' .. (t.id and (t.id .. ' ') or '') .. t.title
  if t.usage then
    s = s .. '  · ' .. usage_text(t.usage) .. ' tokens'
    local window = info.contextTokens or 0
    if t.last and window > 0 then
      s = s .. string.format(' · context %d%% of %s', math.floor(100 * (t.last.inputTokens or 0) / window + 0.5), kilo(window))
    end
    local c = M.cost(t.usage, t.cost)
    if c then
      s = s .. string.format(' · $%.4f', c)
    end
  end
  return s
end

local function refresh_task(t)
  if t and valid_buf() then
    set_row(t.row, task_text(t))
  end
end

-- short renders a tool call as "name path" (or pattern, command).
local function call_args(call)
  local ok, args = pcall(vim.json.decode, call and call.arguments or '')
  if ok and type(args) == 'table' then
    return args
  end
  return {}
end

local function short(call)
  if not call then
    return '?'
  end
  local args = call_args(call)
  for _, k in ipairs({ 'path', 'pattern', 'command' }) do
    if type(args[k]) == 'string' and args[k] ~= '' then
      return call.name .. ' ' .. args[k]
    end
  end
  return call.name
end
M.short = short

local function count_lines(s)
  if type(s) ~= 'string' or s == '' then
    return 0
  end
  local n = select(2, s:gsub('\n', ''))
  if s:sub(-1) ~= '\n' then
    n = n + 1
  end
  return n
end

local function plural(n, word)
  return string.format('%d %s%s', n, word, n == 1 and '' or 's')
end

-- size says what a tool did in numbers that match it: the lines an edit
-- wrote, not the lines of its one-line confirmation.
function M.size(call, output)
  local args = call_args(call)
  local name = call and call.name or ''
  if name == 'edit_file' and type(args.new_string) == 'string' then
    return string.format('%s → %s', plural(count_lines(args.old_string), 'line'), plural(count_lines(args.new_string), 'line'))
  elseif name == 'write_file' and type(args.content) == 'string' then
    return plural(count_lines(args.content), 'line') .. ' written'
  end
  return plural(count_lines(output), 'line')
end

local function first_line(s, n)
  s = (s or ''):gsub('^%s+', '')
  s = s:match('^[^\n]*') or ''
  if #s > n then
    s = s:sub(1, n) .. '…'
  end
  return s
end

local call_rows = {} -- tool call id -> { row, text }

-- render turns one agentls/event into stream output.
local quiet = { usage = true, state = true, options = true, commands = true }
-- A sub-agent's step with nothing to show writes nothing: no label for it.
local function silent(ev)
  return ev.kind == 'nested' and not (type(ev.line) == 'string' and ev.line ~= '')
end
local held = {} -- taskId -> text a task streamed while another wrote last

function M.render(ev)
  local id = ev.taskId or '?'
  local kind = ev.kind
  local prompt = type(ev.task) == 'string' and ev.task ~= '' and ev.task or nil
  local t = task_row(id, prompt)
  if not t and prompt then
    -- A task this editor did not type (a code action's "Fix with
    -- agentls"): the server's first event names its prompt.
    M.begin_task((prompt:gsub('\n', ' ⏎ ')), prompt)
    t = task_row(id, prompt)
  end
  if t and not t.named then
    t.id, t.named = id, true
    refresh_task(t) -- "▶ t3 …": the id the end line and labels use
  end
  local function label()
    if last_id ~= id then
      -- Another task wrote last: this one's lines go under its name.
      M.line('┄ ' .. id .. (t and (' · ' .. t.title) or ''))
      last_id = id
    end
  end
  if kind == 'text' and last_id ~= id and type(last_id) == 'string' then
    -- Another task streams: this one's text waits for whole lines, so
    -- two tasks alternate by lines, not by the few bytes of a delta.
    local h = (held[id] or '') .. (ev.text or '')
    local cut = h:match('^.*()\n')
    if cut then
      label()
      M.line(h:sub(1, cut - 1))
      h = h:sub(cut + 1)
    end
    held[id] = h ~= '' and h or nil
    return
  end
  if (not quiet[kind] or (kind == 'state' and ev.to == 'verifying')) and not silent(ev) then
    if held[id] then
      label()
      M.line(held[id]) -- its unfinished line, before what follows it
      held[id] = nil
    end
    label()
  end
  if kind == 'text' then
    M.text(ev.text)
  elseif kind == 'state' then
    if ev.to == 'verifying' then
      M.line(string.format('· %s %s', id, ev.to))
    end
  elseif kind == 'toolCall' then
    local text = '→ ' .. short(ev.call)
    local row = M.line(text)
    if ev.call and ev.call.id then
      call_rows[ev.call.id] = { row = row, text = text }
    end
  elseif kind == 'toolResult' then
    local name = ev.call and ev.call.name or '?'
    local r = ev.call and ev.call.id and call_rows[ev.call.id]
    local what
    if ev.isError then
      what = 'failed: ' .. first_line(ev.output, 200)
    else
      what = 'ok (' .. M.size(ev.call, ev.output) .. ')'
    end
    if type(ev.ran) == 'string' and ev.ran ~= '' then
      -- A command: how it ran and ended instead of a line count, and its
      -- output (the model's capped copy) folded under it.
      what = (ev.isError and 'failed · ' or '') .. ev.ran
    end
    if r then
      set_row(r.row, r.text .. ' · ' .. what) -- one line per tool call
    else
      M.line(string.format('← %s %s', name, what))
    end
    if type(ev.ran) == 'string' and type(ev.output) == 'string' and ev.output ~= '' then
      local out = {}
      for _, l in ipairs(vim.split(vim.trim(ev.output), '\n', { plain = true })) do
        table.insert(out, '    │ ' .. l)
      end
      M.line(unpack(out))
    end
  elseif kind == 'nested' then
    -- A sub-agent's step, under the task (the server's one line).
    if type(ev.line) == 'string' and ev.line ~= '' then
      M.line('    ↳ ' .. ev.line)
    end
  elseif kind == 'verify' then
    local v = ev.verify or {}
    if v.passed then
      M.line('✓ checks passed: ' .. (v.summary or ''))
    else
      M.line('✗ checks failed: ' .. (v.summary or ''))
      -- Why: the located problems, else the first lines of the checks'
      -- output. Beside another language server the editor may hide
      -- agentls's diagnostic as a duplicate, so the conversation says it.
      local why = v.located or {}
      if #why == 0 and type(v.feedback) == 'string' then
        why = vim.split(vim.trim(v.feedback), '\n', { plain = true })
      end
      for i, l in ipairs(why) do
        if i > 10 then
          M.line(string.format('    … %d more', #why - 10))
          break
        end
        M.line('    ' .. first_line(l, 300))
      end
    end
  elseif kind == 'usage' then
    if t then
      t.usage = ev.taskUsage or ev.usage
      t.last = ev.usage or t.last
      refresh_task(t)
    end
  elseif kind == 'retry' or kind == 'compaction' or kind == 'budget' or kind == 'notice' then
    M.line(string.format('· %s: %s', kind, ev.text or ''))
  elseif kind == 'plan' then
    local marks = { completed = '[x]', in_progress = '[>]' }
    local steps = (ev.plan or {}).plan or {}
    local done = 0
    for _, s in ipairs(steps) do
      if s.status == 'completed' then
        done = done + 1
      end
    end
    local text = { string.format('· plan (%d of %d done)', done, #steps)
      .. ((ev.plan or {}).explanation and (': ' .. first_line(ev.plan.explanation, 200)) or '') }
    for _, s in ipairs(steps) do
      table.insert(text, '    ' .. (marks[s.status] or '[ ]') .. ' ' .. first_line(s.step, 200))
    end
    local old = t and t.plan
    if old and #old.text == #text and old.text[1]:match('^· plan') then
      -- The same steps, their marks changed: the plan is updated where it
      -- is, not printed again.
      for i, l in ipairs(text) do
        set_row(old.row + i - 1, l)
      end
      old.text = text
    else
      local row = M.line(unpack(text))
      if t then
        t.plan = { row = row, text = text }
      end
    end
  elseif kind == 'end' then
    local r = ev.result or {}
    if t then
      t.usage = r.usage or t.usage
      t.cost = r.cost
      refresh_task(t)
    end
    local msg = r.summary or r.error or ''
    -- The answer's first line is often a Markdown heading: "## Done"
    -- reads "Done" in the one-line summary.
    msg = (msg:gsub('^%s*#+%s*', ''))
    local word = type(ev.ended) == 'string' and ev.ended ~= '' and ev.ended or M.status_word(r)
    if r.cancelled or msg == '' then
      M.line(string.format('■ %s %s', id, word)) -- "cancelled by you" says it all
    else
      M.line(string.format('■ %s %s: %s', id, word, first_line(msg, 120)))
    end
    -- null (vim.NIL) when the task changed nothing, e.g. in a worktree.
    local files = type(r.filesChanged) == 'table' and r.filesChanged or {}
    if #files > 0 then
      M.line('  files: ' .. table.concat(files, ', '))
    end
    M.line('')
  end
end

return M
