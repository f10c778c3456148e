-- :checkhealth agentls — the binary, its version, the running server's
-- endpoint and model list, whether a key is set (never the key), and what
-- this Neovim supports.
local M = {}

local h = vim.health or require('health')
local ok = h.ok or h.report_ok
local warn = h.warn or h.report_warn
local err = h.error or h.report_error
local info = h.info or h.report_info
local start = h.start or h.report_start

-- request runs an agentls command on the running client and waits.
local function request(command, args)
  local a = require('agentls')
  local done, e, r = false, nil, nil
  a.exec(command, args or {}, function(x, y)
    done, e, r = true, x, y
  end)
  vim.wait(12000, function()
    return done
  end, 20)
  if not done then
    return { message = 'no answer within 12 s' }, nil
  end
  return e, r
end

function M.check()
  local a = require('agentls')
  start('agentls binary')
  -- The running client's command, else the configured one.
  local rc = a.client()
  local cmd = (rc and type(rc.config.cmd) == 'table' and rc.config.cmd[1]) or (a.config.cmd or { 'agentls' })[1]
  local path = vim.fn.exepath(cmd)
  if path == '' then
    err(cmd .. ' not found on PATH', { 'make build, then copy bin/agentls to a directory on your PATH', 'or set cmd in setup()' })
  else
    ok('found: ' .. path)
    local v = vim.fn.system({ path, 'version' })
    if vim.v.shell_error == 0 then
      ok('version: ' .. vim.trim(v))
    else
      warn('`' .. cmd .. ' version` failed: ' .. vim.trim(v))
    end
  end

  start('agentls server')
  local c = a.client()
  if not c and a._setup_done then
    -- Right after start-up the server may still be initializing (0.7
    -- lists a client only once it is): give it up to 2 s.
    vim.wait(2000, function()
      c = a.client()
      return c ~= nil
    end, 20)
  end
  if not c and a._setup_done and a.config.autostart then
    warn('starting: no agentls server has answered yet (it starts with the first file of a workspace); run :checkhealth agentls again in a moment')
  elseif not c then
    warn('no agentls server is running: open a file in a workspace (setup() starts one), then run :checkhealth agentls again')
  else
    ok(string.format('running (client %d, root %s)', c.id, c.config.root_dir or '?'))
    local e, r = request('agentls.info')
    if e then
      err('agentls.info: ' .. (e.message or vim.inspect(e)))
    else
      info(string.format('endpoint %s, model %s, context %d tokens', r.baseURL or '?', a.config.model or r.model or '?', r.contextTokens or 0))
      if r.keySet then
        ok('API key: set')
      else
        warn('API key: not set (fine for a local server; else set AGENTLS_API_KEY or OPENAI_API_KEY)')
      end
      if (r.priceInput or 0) > 0 then
        info(string.format('prices: $%g in / $%g out per million tokens', r.priceInput, r.priceOutput or 0))
      end
    end
    local me, mr = request('agentls.models')
    if me then
      err('endpoint unreachable or /v1/models failed: ' .. (me.message or vim.inspect(me)))
    else
      local models = mr.models or {}
      ok(string.format('endpoint reachable: /v1/models lists %d model%s (%s)', #models, #models == 1 and '' or 's',
        table.concat(vim.list_slice(models, 1, 8), ', ')))
      local want = a.config.model or mr.current
      if want and not vim.tbl_contains(models, want) then
        warn('the model ' .. want .. ' is not in the list')
      end
    end
  end

  start('Neovim')
  local v = vim.version()
  local vs = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 0 then
    err('Neovim ' .. vs .. ' is too old: agentls needs 0.7 or newer')
  else
    ok('Neovim ' .. vs)
  end
  local feats = {
    { vim.lsp.start ~= nil, 'vim.lsp.start (0.8+)', 'the plugin starts the client with vim.lsp.start_client' },
    { vim.fn.exists('##LspProgress') == 1, 'LspProgress event (0.10+)', 'progress is read from the $/progress handler' },
    { vim.lsp.enable ~= nil, "vim.lsp.enable('agentls') with lsp/agentls.lua (0.11+)", 'use setup() instead' },
  }
  for _, f in ipairs(feats) do
    if f[1] then
      ok(f[2])
    else
      info(f[2] .. ': not in this Neovim; ' .. f[3])
    end
  end
end

return M
