-- Two things Neovim's LSP client does that agentls users should not see:
-- - an agent edit to a file with no buffer leaves a hidden, modified,
--   unsaved buffer (":ls" shows `h +`); with save_unopened the plugin saves
--   such buffers and unloads them again, the way VS Code's workspace edits
--   write unopened files. Buffers the user had open stay unsaved.
-- - a compile error shows twice, from the language server and from
--   agentls's checks; with dedupe_diagnostics an agentls diagnostic whose
--   message another source already shows on the same line is hidden.
local M = {}

local installed = false
local cfg = {}

local function is_agentls(ctx)
  local c = ctx and vim.lsp.get_client_by_id(ctx.client_id)
  return c ~= nil and c.name == 'agentls'
end

local function edit_uris(edit)
  local uris = {}
  for u in pairs((edit or {}).changes or {}) do
    uris[u] = true
  end
  for _, dc in ipairs((edit or {}).documentChanges or {}) do
    if dc.textDocument and dc.textDocument.uri and not dc.kind then
      uris[dc.textDocument.uri] = true
    end
  end
  return uris
end

-- saved lists the files the last agent edits wrote (for tests and :messages).
M.saved = {}

local function wrap_apply_edit()
  local orig = vim.lsp.handlers['workspace/applyEdit']
  vim.lsp.handlers['workspace/applyEdit'] = function(err, result, ctx, config)
    if not cfg.save_unopened or not is_agentls(ctx) or type(result) ~= 'table' then
      return orig(err, result, ctx, config)
    end
    local unopened = {}
    for u in pairs(edit_uris(result.edit)) do
      local ok, fname = pcall(vim.uri_to_fname, u)
      if ok and vim.fn.bufloaded(fname) == 0 then
        unopened[fname] = true
      end
    end
    local res = orig(err, result, ctx, config)
    if res and res.applied then
      for fname in pairs(unopened) do
        local b = vim.fn.bufnr(fname)
        if b > 0 and vim.api.nvim_buf_get_option(b, 'modified') then
          local ok, e = pcall(vim.api.nvim_buf_call, b, function()
            vim.cmd('silent noautocmd write')
          end)
          if ok then
            table.insert(M.saved, fname)
            -- Hidden again as before the edit: no `h +` buffer left behind.
            pcall(vim.api.nvim_buf_delete, b, {})
          else
            vim.notify('agentls: could not save ' .. fname .. ': ' .. tostring(e), vim.log.levels.WARN)
          end
        end
      end
    end
    return res
  end
end

local function same_line_elsewhere(bufnr, ns, d)
  local line = d.range and d.range.start and d.range.start.line
  if not line then
    return false
  end
  local msg = vim.trim(type(d.message) == 'string' and d.message or '')
  if msg == '' then
    return false
  end
  for _, o in ipairs(vim.diagnostic.get(bufnr, { lnum = line })) do
    if o.namespace ~= ns then
      local om = vim.trim(o.message or '')
      if om ~= '' and (om == msg or msg:find(om, 1, true) or om:find(msg, 1, true)) then
        return true
      end
    end
  end
  return false
end

local raw = {} -- uri -> { result, ctx, config, shown }
local publishing = false

local function publish(orig, err, result, ctx, config)
  local bufnr = vim.uri_to_bufnr(result.uri)
  local ns = vim.lsp.diagnostic.get_namespace(ctx.client_id)
  local kept = {}
  for _, d in ipairs(result.diagnostics or {}) do
    if not same_line_elsewhere(bufnr, ns, d) then
      table.insert(kept, d)
    end
  end
  raw[result.uri] = { result = result, ctx = ctx, config = config, shown = #kept }
  publishing = true
  local ok, e = pcall(orig, err, vim.tbl_extend('force', result, { diagnostics = kept }), ctx, config)
  publishing = false
  if not ok then
    error(e)
  end
end

local function wrap_diagnostics()
  local orig = vim.lsp.handlers['textDocument/publishDiagnostics']
  vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
    if not cfg.dedupe_diagnostics or not is_agentls(ctx) or type(result) ~= 'table' then
      return orig(err, result, ctx, config)
    end
    return publish(orig, err, result, ctx, config)
  end
  -- Another source publishing later: filter agentls's list again.
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = vim.api.nvim_create_augroup('agentls_dedupe', { clear = true }),
    callback = function(a)
      if publishing or not cfg.dedupe_diagnostics then
        return
      end
      local r = raw[vim.uri_from_bufnr(a.buf)]
      if not r or not vim.lsp.get_client_by_id(r.ctx.client_id) then
        return
      end
      local ns = vim.lsp.diagnostic.get_namespace(r.ctx.client_id)
      local n = 0
      for _, d in ipairs(r.result.diagnostics or {}) do
        if not same_line_elsewhere(a.buf, ns, d) then
          n = n + 1
        end
      end
      if n ~= r.shown then
        vim.schedule(function()
          publish(orig, nil, r.result, r.ctx, r.config)
        end)
      end
    end,
  })
end

function M.install(config)
  cfg = config
  if installed then
    return
  end
  installed = true
  wrap_apply_edit()
  wrap_diagnostics()
end

return M
