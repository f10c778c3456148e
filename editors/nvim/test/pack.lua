-- Neovim 0.12: the repository installed with vim.pack from its URL (a local
-- repository standing for it, AGENTLS_PACK_SRC), then its first start with
-- agentls not on PATH: the offer to download it (answered yes here) from a
-- release directory (AGENTLS_RELEASE_URL, file://), and the server so
-- fetched attaching to a buffer. Run by test.sh as `nvim --headless -u
-- pack.lua`; writes one line per check and exits non-zero if one fails.
local out = assert(os.getenv('AGENTLS_PACK_OUT'))
local failures = 0
local lines = {}
local function check(name, ok, detail)
  if not ok then
    failures = failures + 1
  end
  table.insert(lines, (ok and 'ok   ' or 'FAIL ') .. name .. (detail and (' — ' .. tostring(detail)) or ''))
end
local function finish()
  vim.fn.writefile(lines, out)
  vim.cmd(failures == 0 and 'qall!' or 'cquit 1')
end

check('agentls is not on PATH', vim.fn.executable('agentls') == 0, vim.fn.exepath('agentls'))

-- The one line the README gives, with the URL replaced by the local
-- repository (and no confirmation buffer: this is a headless run).
vim.pack.add({ os.getenv('AGENTLS_PACK_SRC') }, { confirm = false })

local asked = {}
vim.fn.confirm = function(msg, choices, default)
  table.insert(asked, msg)
  return 1 -- "Download"
end

vim.api.nvim_create_autocmd('VimEnter', {
  once = true,
  callback = function()
    vim.schedule(function()
      local ok, err = pcall(function()
        local installed = vim.fn.stdpath('data') .. '/site/pack/core/opt/agentls'
        check('vim.pack cloned the repository', vim.fn.isdirectory(installed .. '/.git') == 1, installed)
        check(':AgentRun is defined (the root plugin/ shim ran editors/nvim/plugin)', vim.fn.exists(':AgentRun') == 2)
        local init = vim.api.nvim_get_runtime_file('lua/agentls/init.lua', false)[1] or ''
        check('lua/agentls comes from the installed editors/nvim', init:find(installed .. '/editors/nvim/', 1, true) == 1, init)
        local lspcfg = vim.lsp.config.agentls
        check("vim.lsp.config finds lsp/agentls.lua", lspcfg and type(lspcfg.cmd) == 'table' and lspcfg.cmd[1] ~= nil,
          lspcfg and vim.inspect(lspcfg.cmd))
        local help = vim.fn.globpath(vim.o.runtimepath, 'doc/agentls.txt', false, true)[1] or ''
        check(':help agentls finds the installed doc/', help:find(installed, 1, true) == 1, help)

        require('agentls').setup({ fetch = { url = os.getenv('AGENTLS_RELEASE_URL') } })
        vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('AGENTLS_PACK_WS') .. '/hello.txt'))
        local buf = vim.api.nvim_get_current_buf()
        local attached = vim.wait(20000, function()
          local c = vim.lsp.get_clients({ name = 'agentls', bufnr = buf })[1]
          return c ~= nil and c.initialized == true
        end, 50)
        check('the first start asked before downloading, once', #asked == 1, asked[1])
        check('the question names the archive and where it goes', (asked[1] or ''):find('agentls_', 1, true) ~= nil
          and (asked[1] or ''):find(vim.fn.stdpath('data'), 1, true) ~= nil)
        local fetched = vim.fn.stdpath('data') .. '/agentls/bin/agentls'
        check('the server was fetched into stdpath("data")', vim.fn.executable(fetched) == 1, fetched)
        check('the fetched server attached to the buffer', attached)
        local c = vim.lsp.get_clients({ name = 'agentls', bufnr = buf })[1]
        check('the client runs the fetched binary', c and c.config.cmd[1] == fetched, c and vim.inspect(c.config.cmd))
        local h = require('agentls.fetch')
        -- A release whose checksums do not match is refused and leaves nothing.
        local bad, why = h.download(os.getenv('AGENTLS_BAD_RELEASE_URL'), vim.fn.stdpath('data') .. '/bad')
        check('a download whose SHA-256 does not match is refused', bad == nil and (why or ''):find('SHA%-256') ~= nil, why)
        check('and nothing is installed', vim.fn.filereadable(vim.fn.stdpath('data') .. '/bad/agentls') == 0)
      end)
      if not ok then
        check('no error', false, err)
      end
      finish()
    end)
  end,
})
