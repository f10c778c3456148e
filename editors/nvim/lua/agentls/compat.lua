-- Version shims: the plugin runs on Neovim 0.7.2 (Debian 12) and uses the
-- newer APIs (vim.lsp.get_clients, method-style client calls, autocmd data)
-- when the running Neovim has them, so one code path reads the same on both.
local M = {}

M.has_012 = vim.fn.has('nvim-0.12') == 1
M.has_011 = vim.fn.has('nvim-0.11') == 1
M.has_08 = vim.fn.has('nvim-0.8') == 1

-- get_clients returns a list of clients filtered by name and/or bufnr.
function M.get_clients(filter)
  filter = filter or {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  local pool
  if filter.bufnr then
    pool = {}
    for _, c in pairs(vim.lsp.buf_get_clients(filter.bufnr)) do
      table.insert(pool, c)
    end
  else
    pool = vim.lsp.get_active_clients()
  end
  local out = {}
  for _, c in ipairs(pool) do
    if not filter.name or c.name == filter.name then
      table.insert(out, c)
    end
  end
  return out
end

-- request sends a request through a client; 0.11 deprecates the dot form.
function M.request(client, method, params, handler, bufnr)
  if M.has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.is_stopped(client)
  if M.has_011 then
    return client:is_stopped()
  end
  return client.is_stopped()
end

-- user_event fires `User <pattern>`; the data rides along where autocmds
-- can carry it (0.8+); on 0.7 handlers read require('agentls').last_event.
function M.user_event(pattern, data)
  if vim.fn.exists('#User#' .. pattern) == 0 then
    return
  end
  if M.has_08 then
    vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false, data = data })
  else
    vim.api.nvim_exec_autocmds('User', { pattern = pattern, modeline = false })
  end
end

-- find_root walks up from path to the first directory holding a marker.
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  while true do
    for _, m in ipairs(markers) do
      if vim.loop.fs_stat(dir .. '/' .. m) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

-- position converts a 0-based row and byte column of a buffer into an LSP
-- position in the client's encoding, clamping past-the-end columns.
function M.position(bufnr, row, col, encoding)
  local line = vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1] or ''
  if col > #line then
    col = #line
  end
  return { line = row, character = vim.lsp.util.character_offset(bufnr, row, col, encoding or 'utf-16') }
end

-- markdown highlights a scratch buffer as Markdown. From Neovim 0.12 the
-- markdown ftplugin starts treesitter, which fails where the parser is not
-- installed (or not on Neovim's libdir) and takes the command that opened
-- the buffer down with it; there, only the syntax is set.
function M.markdown(buf)
  local lang = vim.treesitter and vim.treesitter.language
  if M.has_012 and lang and lang.add and not lang.add('markdown') then
    vim.api.nvim_buf_set_option(buf, 'syntax', 'markdown')
    return
  end
  vim.api.nvim_buf_set_option(buf, 'filetype', 'markdown')
end

return M
