-- Worktree tasks in Neovim (run.lua calls it last): a task with
-- isolation "worktree" leaves the buffer alone; :AgentWorktrees lists it
-- with its state, merges it into the buffer, and discards it.
local M = {}
local T

function M.init(helpers)
  T = helpers
end

local function git(...)
  local out = vim.fn.system({ 'git', '-C', T.ws, '-c', 'user.name=t', '-c', 'user.email=t@t', ... })
  return vim.v.shell_error == 0, out
end

function M.run(a)
  if vim.fn.executable('git') == 0 then
    return T.skip('worktree tasks', 'no git')
  end
  local f = io.open(T.ws .. '/wt.txt', 'w')
  f:write('calm words\n')
  f:close()
  local ok, out = git('init', '-q')
  ok = ok and git('add', '-A')
  ok = ok and git('commit', '-q', '-m', 'first')
  if not ok then
    return T.fail('worktree tasks', 'git: ' .. tostring(out))
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(T.ws .. '/wt.txt'))
  local buf = vim.api.nvim_get_current_buf()
  -- :AgentRun! runs this one task in a worktree (agent.isolation is "none").
  local n0 = #a.tasks()
  vim.cmd('AgentRun! Worktree: shout wt.txt')
  local id = T.new_task(n0, 5000)
  local r = id and T.wait_task(id, 20000)
  local _, l0 = T.sync(a.exec, 'agentls.worktrees', {})
  T.check('a worktree task (:AgentRun!) ends without touching the buffer', r and r.status == 'ok'
    and T.line1(buf) == 'calm words' and l0 and l0.worktrees and #l0.worktrees == 1 and true or false,
    vim.inspect(r) .. ' ' .. tostring(T.line1(buf)) .. ' ' .. vim.inspect(l0))

  -- :AgentWorktrees: the picker lists it (ended, wt.txt waiting); merge.
  local labels, kinds = {}, {}
  local sel = vim.ui.select
  vim.ui.select = function(items, opts, cb)
    table.insert(kinds, opts.kind)
    for _, it in ipairs(items) do
      table.insert(labels, opts.format_item and opts.format_item(it) or it)
    end
    if opts.kind == 'agentls.worktrees' then
      return cb(items[#items], #items)
    end
    for i, it in ipairs(items) do
      if it == 'merge' then
        return cb(it, i)
      end
    end
  end
  local nmsg = #T.messages
  vim.cmd('AgentWorktrees')
  local said = false
  local merged = vim.wait(8000, function()
    for i = nmsg + 1, #T.messages do
      said = said or T.messages[i]:find('merged 1 hunk', 1, true) ~= nil
    end
    return said and T.line1(buf) == 'LOUD words'
  end, 20)
  vim.ui.select = sel
  T.check(':AgentWorktrees lists the worktree with its state and merges it into the buffer', merged and said
    and kinds[1] == 'agentls.worktrees' and (labels[1] or ''):find('ended', 1, true) ~= nil
    and (labels[1] or ''):find('^' .. id .. ' ') ~= nil
    and (labels[1] or ''):find('wt.txt', 1, true) ~= nil and true or false,
    vim.inspect({ labels = labels, kinds = kinds, line = T.line1(buf), messages = { unpack(T.messages, nmsg + 1) } }))

  local _, list = T.sync(a.exec, 'agentls.worktrees', {})
  local w = list and list.worktrees and list.worktrees[1]
  if not w then
    return T.fail(':AgentWorktrees', 'no worktree listed')
  end

  -- :AgentWorktrees continue ID: a follow-up in the same worktree; its
  -- merge brings only its own change.
  local input = vim.ui.input
  vim.ui.input = function(_, cb)
    cb('Worktree: and the words')
  end
  local before = #a.tasks()
  vim.cmd('AgentWorktrees continue ' .. w.id)
  local t2 = T.new_task(before, 5000)
  vim.ui.input = input
  local r2 = t2 and T.wait_task(t2, 20000)
  local _, m2 = T.sync(a.exec, 'agentls.worktreeMerge', { id = w.id })
  T.check(':AgentWorktrees continue runs a follow-up in the worktree, merged after the first',
    r2 and r2.status == 'ok' and m2 and m2.merged == 1 and #(m2.conflicts or {}) == 0
      and vim.wait(5000, function()
        return T.line1(buf) == 'LOUD WORDS'
      end, 20) and true or false,
    vim.inspect({ task = r2, merge = m2, line = T.line1(buf) }))

  -- :AgentWorktrees discard ID asks first, then removes the worktree and
  -- its branch.
  local asked = {}
  vim.ui.select = function(items, opts, cb)
    table.insert(asked, opts.prompt)
    if opts.kind == 'agentls.confirm' then
      return cb('Discard', 1)
    end
    cb(nil, nil)
  end
  vim.cmd('AgentWorktrees discard ' .. w.id)
  local gone = vim.wait(8000, function()
    local _, l = T.sync(a.exec, 'agentls.worktrees', {})
    return l and l.worktrees and #l.worktrees == 0
  end, 50)
  local _, branches = git('branch', '--list', 'agentls/*')
  vim.ui.select = sel
  T.check(':AgentWorktrees discard asks before it throws the work away', #asked == 1
    and asked[1]:find('discard worktree t%d+%?') ~= nil, vim.inspect(asked))
  T.check(':AgentWorktrees discard removes the worktree and its branch', gone and vim.fn.isdirectory(w.path) == 0
    and vim.trim(branches or '') == '' and true or false, vim.inspect({ w.path, branches }))
end

return M
