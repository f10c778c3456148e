-- :checkhealth agentls — the binary, its version, the running server, what
-- `agentls doctor` finds (the key, never shown; the endpoint and model; the
-- sandbox; trust; the state directory; the editors' plugins), and what this
-- Neovim supports.
local M = {}

local h = vim.health or require('health')
local ok = h.ok or h.report_ok
local warn = h.warn or h.report_warn
local err = h.error or h.report_error
local info = h.info or h.report_info
local start = h.start or h.report_start

-- report maps one of `agentls doctor`'s checks onto the health report.
local function report(check)
  local line = check.name .. ': ' .. check.summary
  local advice = check.details
  if advice and #advice == 0 then
    advice = nil
  end
  if check.status == 'ok' then
    ok(line)
  elseif check.status == 'warn' then
    warn(line, advice)
  elseif check.status == 'fail' then
    err(line, advice)
  else
    info(line)
  end
  if check.status == 'ok' or check.status == 'info' then
    for _, d in ipairs(advice or {}) do
      info('  ' .. d)
    end
  end
end

-- doctor runs `agentls doctor --json` on the server's workspace with the
-- settings the plugin sends it, and reports each of its checks: the key
-- (never shown), the endpoint and model, the sandbox, trust, the state
-- directory and the editors' plugins.
function M.doctor(path, client)
  local a = require('agentls')
  start('agentls doctor')
  local cfg = client and client.config or {}
  local settings = vim.tbl_deep_extend('force', cfg.init_options or a.config.init_options or {},
    ((cfg.settings or a.config.settings or {}).agentls) or {})
  local root = cfg.root_dir or vim.fn.getcwd()
  local cmd = { path, 'doctor', '--json', '--workspace', root }
  if next(settings) ~= nil then
    vim.list_extend(cmd, { '--settings', vim.fn.json_encode(settings) })
  end
  local out = vim.fn.system(cmd)
  local okj, r = pcall(vim.fn.json_decode, out)
  if not okj or type(r) ~= 'table' or type(r.checks) ~= 'table' then
    err('`agentls doctor --json` failed (exit ' .. vim.v.shell_error .. '): ' .. vim.trim(out):sub(1, 400))
    return
  end
  for _, check in ipairs(r.checks) do
    if check.name ~= 'binary' then
      report(check)
    end
  end
  if r.exit == 1 then
    err('a task could not run here (agentls doctor exit 1): see the errors above')
  elseif r.exit == 3 then
    warn('a task runs unconfined here: the sandbox is unavailable, so every command is asked about (agentls doctor exit 3)')
  else
    ok('a task can run here')
  end
end

function M.check()
  local a = require('agentls')
  start('agentls binary')
  -- The running client's command, else the configured one.
  local rc = a.client()
  local cmd = (rc and type(rc.config.cmd) == 'table' and rc.config.cmd[1]) or (a.config.cmd or { 'agentls' })[1]
  local path = vim.fn.exepath(cmd)
  if path == '' and cmd == 'agentls' then
    path = require('agentls.fetch').installed(a.config.fetch or nil) or '' -- downloaded from the releases
  end
  if path == '' then
    err(cmd .. ' not found on PATH', {
      'download it from the releases (README.md, Install), or accept the download the first start offers',
      'or set cmd in setup()',
    })
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
  end

  if path ~= '' then
    M.doctor(path, c)
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
