-- Opt-in default key maps: setup({ keymaps = true }) sets these; a table
-- ({ run = '<leader>r', chat = false, ... }) changes or drops some.
local M = {}

M.defaults = {
  run = { '<leader>aa', 'AgentRun', 'run a task' },
  review = { '<leader>ar', 'AgentRunReview', 'run a task in review mode' },
  chat = { '<leader>ac', 'AgentChat', 'open the conversation' },
  history = { '<leader>ah', 'AgentHistory', 'task history' },
  diff = { '<leader>ad', 'AgentDiff', 'review diff' },
  model = { '<leader>am', 'AgentModel', 'pick the model' },
  cancel = { '<leader>ax', 'AgentCancel', 'cancel the running task' },
  stream = { '<leader>as', 'AgentStream', 'show or hide the stream' },
  commands = { '<leader>a/', 'AgentCommand', 'run a project command' },
}

function M.set(opts)
  local over = type(opts) == 'table' and opts or {}
  for name, d in pairs(M.defaults) do
    local lhs = d[1]
    if over[name] ~= nil then
      lhs = over[name]
    end
    if lhs then
      vim.keymap.set('n', lhs, '<Cmd>' .. d[2] .. '<CR>', { desc = 'agentls: ' .. d[3] })
    end
  end
  local run = over.run == nil and M.defaults.run[1] or over.run
  if run then
    -- A selection: the task is about it.
    vim.keymap.set('x', run, ':AgentRun<CR>', { desc = 'agentls: run a task on the selection' })
  end
end

return M
