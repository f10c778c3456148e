-- Neovim 0.11+: `vim.lsp.enable('agentls')` starts agentls with this
-- configuration (this directory is on 'runtimepath' with the plugin).
-- Override with vim.lsp.config('agentls', { ... }). The plugin's commands,
-- stream and statusline find the client by its name, "agentls"; call
-- require('agentls').setup({ autostart = false }) for its handlers.
-- agentls on PATH, else the binary require('agentls').setup{} downloaded
-- from the releases on a first start (agentls.fetch).
local exe = 'agentls'
if vim.fn.executable(exe) == 0 then
  local ok, fetch = pcall(require, 'agentls.fetch')
  exe = ok and fetch.installed() or exe
end
return {
  cmd = { exe, 'serve' },
  root_markers = { '.agentls.json', '.git', 'go.mod', 'package.json', 'Makefile' },
  handlers = {
    ['agentls/event'] = function(_, params)
      require('agentls').on_event(params)
    end,
  },
}
