-- The conversation: the stream buffer (Markdown) above, a small input
-- buffer below it. What the user types there (any number of lines) is
-- sent with the send key (<C-s> by default, also <CR> in normal mode) and
-- continues the newest task's session through agentls.continue, so the
-- agent keeps what it read and did; with no task yet it starts one.
-- "@path" and "@path:10-40" in the text attach files (the server reads
-- them inside the workspace).
local M = {}

local input_buf, input_win

local function agentls()
  return require('agentls')
end

local function valid(b)
  return b ~= nil and vim.api.nvim_buf_is_valid(b)
end

-- session is the session a follow-up continues: the newest task's.
function M.session()
  local t = agentls().latest_task(function(x)
    return x.session ~= nil
  end)
  return t and t.session
end

function M.input_bufnr()
  if valid(input_buf) then
    return input_buf
  end
  input_buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_name(input_buf, 'agentls://input')
  vim.api.nvim_buf_set_option(input_buf, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(input_buf, 'bufhidden', 'hide')
  vim.api.nvim_buf_set_option(input_buf, 'swapfile', false)
  require('agentls.compat').markdown(input_buf)
  local key = (agentls().config.chat or {}).send_key or '<C-s>'
  local send = function()
    M.send_input()
  end
  vim.keymap.set({ 'n', 'i' }, key, send, { buffer = input_buf, desc = 'agentls: send' })
  vim.keymap.set('n', '<CR>', send, { buffer = input_buf, desc = 'agentls: send' })
  return input_buf
end

function M.input_winid()
  if input_win and vim.api.nvim_win_is_valid(input_win) then
    return input_win
  end
end

-- open shows the conversation: the stream and, under it, the input.
function M.open(opts)
  opts = opts or {}
  local a = agentls()
  local so = vim.tbl_extend('force', a.config.stream or {}, { open = 'split' })
  local stream = require('agentls.stream')
  if not stream.is_open() then
    stream.open({ kind = 'split', height = so.height, focus = false })
  end
  local b = M.input_bufnr()
  if not M.input_winid() then
    local prev = vim.api.nvim_get_current_win()
    vim.api.nvim_set_current_win(stream.winid())
    vim.cmd('belowright ' .. tostring((a.config.chat or {}).input_height or 5) .. 'split')
    input_win = vim.api.nvim_get_current_win()
    vim.api.nvim_win_set_buf(input_win, b)
    vim.api.nvim_win_set_option(input_win, 'winfixheight', true)
    pcall(vim.api.nvim_win_set_option, input_win, 'winbar',
      'agentls: follow-up (' .. ((a.config.chat or {}).send_key or '<C-s>') .. ' sends)')
    if not opts.focus then
      vim.api.nvim_set_current_win(prev)
    end
  elseif opts.focus then
    vim.api.nvim_set_current_win(input_win)
  end
  return input_win
end

-- send continues the conversation with text (a run when there is none).
function M.send(text, opts)
  opts = opts or {}
  if not text or not text:match('%S') then
    return
  end
  local a = agentls()
  local session = M.session()
  local bufnr = opts.bufnr
  if not bufnr or not valid(bufnr) then
    -- The newest file buffer the user worked in gives the editor context.
    local c = a.client()
    local root = c and c.config and c.config.root_dir
    for _, w in ipairs(vim.api.nvim_list_wins()) do
      local b = vim.api.nvim_win_get_buf(w)
      local name = vim.api.nvim_buf_get_name(b)
      if vim.api.nvim_buf_get_option(b, 'buftype') == '' and root and vim.startswith(name, root .. '/') then
        bufnr = b
        break
      end
    end
  end
  a.run(text, { session = session, bufnr = bufnr, review = opts.review, on_start = opts.on_start })
end

-- send_input sends what the input buffer holds and clears it.
function M.send_input()
  local b = M.input_bufnr()
  local text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
  if not text:match('%S') then
    return
  end
  vim.api.nvim_buf_set_lines(b, 0, -1, false, {})
  M.send(text)
end

function M.close()
  if M.input_winid() then
    vim.api.nvim_win_close(input_win, true)
  end
  input_win = nil
end

return M
