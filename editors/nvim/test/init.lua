-- Minimal init for the headless test: only this plugin on the runtimepath.
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local plugin = vim.fn.fnamemodify(here, ':h')
vim.opt.runtimepath:prepend(plugin)
vim.opt.swapfile = false
vim.opt.hidden = true
vim.opt.shortmess:append('F')
package.path = here .. '/?.lua;' .. package.path
