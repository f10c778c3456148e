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
  vim.api.nvim_buf_set_option(buf, 'filetype', 'agentls')
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

-- line adds whole lines after the current content.
function M.line(...)
  local new = {}
  for _, l in ipairs({ ... }) do
    for part in (l .. '\n'):gmatch('(.-)\n') do
      table.insert(new, part)
    end
  end
  with_modifiable(function(b)
    if is_empty(b) then
      vim.api.nvim_buf_set_lines(b, 0, 1, false, new)
    else
      vim.api.nvim_buf_set_lines(b, -1, -1, false, new)
    end
  end)
  text_open = false
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
  follow()
  return win
end

function M.close()
  if M.is_open() then
    vim.api.nvim_win_close(win, true)
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

-- short renders a tool call as "name path" (or pattern, command).
local function short(call)
  if not call then
    return '?'
  end
  local ok, args = pcall(vim.json.decode, call.arguments or '')
  if ok and type(args) == 'table' then
    for _, k in ipairs({ 'path', 'pattern', 'command' }) do
      if type(args[k]) == 'string' and args[k] ~= '' then
        return call.name .. ' ' .. args[k]
      end
    end
  end
  return call.name
end
M.short = short

local function first_line(s, n)
  s = (s or ''):gsub('^%s+', '')
  s = s:match('^[^\n]*') or ''
  if #s > n then
    s = s:sub(1, n) .. '…'
  end
  return s
end

local function usage_text(u)
  if type(u) ~= 'table' then
    return ''
  end
  return string.format('%d in / %d out', u.inputTokens or 0, u.outputTokens or 0)
end
M.usage_text = usage_text

-- render turns one agentls/event into stream output.
function M.render(ev)
  local id = ev.taskId or '?'
  local kind = ev.kind
  if kind == 'text' then
    M.text(ev.text)
  elseif kind == 'state' then
    if ev.to == 'planning' or ev.to == 'verifying' or ev.to == 'reporting' then
      M.line(string.format('· %s %s', id, ev.to))
    end
  elseif kind == 'toolCall' then
    M.line('→ ' .. short(ev.call))
  elseif kind == 'toolResult' then
    local name = ev.call and ev.call.name or '?'
    if ev.isError then
      M.line(string.format('← %s failed: %s', name, first_line(ev.output, 200)))
    else
      local o = ev.output or ''
      local n = select(2, o:gsub('\n', ''))
      if o ~= '' and o:sub(-1) ~= '\n' then
        n = n + 1
      end
      M.line(string.format('← %s ok (%d line%s)', name, n, n == 1 and '' or 's'))
    end
  elseif kind == 'verify' then
    local v = ev.verify or {}
    if v.passed then
      M.line('✓ checks passed: ' .. (v.summary or ''))
    else
      M.line('✗ checks failed: ' .. (v.summary or ''))
    end
  elseif kind == 'usage' then
    local line = '· tokens ' .. usage_text(ev.usage)
    if ev.taskUsage then
      line = line .. ' (task ' .. usage_text(ev.taskUsage) .. ')'
    end
    M.line(line)
  elseif kind == 'retry' or kind == 'compaction' then
    M.line(string.format('· %s: %s', kind, ev.text or ''))
  elseif kind == 'end' then
    local r = ev.result or {}
    local msg = r.summary or r.error or ''
    if r.cancelled then
      msg = 'cancelled'
    end
    M.line(string.format('■ %s %s: %s', id, r.status or 'ended', first_line(msg, 300)))
    local files = r.filesChanged or {}
    if #files > 0 then
      M.line('  files: ' .. table.concat(files, ', '))
    end
    M.line('  tokens: ' .. usage_text(r.usage) .. string.format(', %d step%s', r.steps or 0, r.steps == 1 and '' or 's'), '')
  end
end

return M
