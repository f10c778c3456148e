-- When this repository itself is installed as a Neovim plugin, from its URL
-- (vim.pack.add({ 'https://github.com/agentls/agentls' }), lazy.nvim's
-- { 'agentls/agentls' }), the plugin proper lives in editors/nvim: put that
-- directory on 'runtimepath' (its lua/, lsp/, doc/) and run its plugin/.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
local dir = root .. '/editors/nvim'
if vim.fn.isdirectory(dir .. '/lua/agentls') == 0 then
  return
end
local rtp = vim.opt.runtimepath:get()
if not vim.tbl_contains(rtp, dir) then
  vim.opt.runtimepath:append(dir)
end
vim.cmd('source ' .. vim.fn.fnameescape(dir .. '/plugin/agentls.lua'))
