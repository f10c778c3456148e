-- Drives CodeCompanion.nvim (a real ACP client, fetched at a pinned commit)
-- headless in Neovim >= 0.11 against `agentls acp`: one chat, one prompt, the
-- streamed answer in the chat buffer, the edit through the client's
-- fs/write_text_file, and the command's permission question answered the way
-- a user does, through the chat buffer's "Accept" key.
-- Environment: CC_DIR, PLENARY_DIR, NVIM_ROOT (for the bundled parsers),
-- AGENTLS_CMD (a shell script that runs agentls acp), RESULT (a file this
-- writes its findings to, one line each), WORKSPACE.
local function env(k)
  local v = os.getenv(k)
  if not v then
    io.stderr:write(k .. " is not set\n")
    vim.cmd("cquit 1")
  end
  return v
end
local result = env("RESULT")
local lines = {}
local function say(s)
  table.insert(lines, s)
  local f = assert(io.open(result, "w"))
  f:write(table.concat(lines, "\n") .. "\n")
  f:close()
end

-- A hang fails instead of blocking the test run.
vim.defer_fn(function()
  say("timeout")
  vim.cmd("cquit 2")
end, 90000)

vim.opt.rtp:prepend(env("PLENARY_DIR"))
vim.opt.rtp:prepend(env("CC_DIR"))
vim.opt.rtp:append(env("NVIM_ROOT") .. "/usr/lib/nvim")
vim.cmd.cd(env("WORKSPACE"))

local ok, err = pcall(function()
  require("codecompanion").setup({
    adapters = {
      acp = {
        agentls = {
          name = "agentls",
          formatted_name = "agentls",
          type = "acp",
          roles = { llm = "assistant", user = "user" },
          opts = { vision = false },
          commands = { default = { env("AGENTLS_CMD") } },
          defaults = { mcpServers = {}, timeout = 30000 },
          parameters = {
            protocolVersion = 1,
            clientCapabilities = { fs = { readTextFile = true, writeTextFile = true } },
            clientInfo = { name = "CodeCompanion.nvim", version = "1.0.0" },
          },
          handlers = {
            setup = function() return true end,
            form_messages = function(self, messages, capabilities)
              return require("codecompanion.adapters.acp.helpers").form_messages(self, messages, capabilities)
            end,
            on_exit = function() end,
          },
        },
      },
    },
    interactions = { chat = { adapter = "agentls" } },
    opts = { log_level = "DEBUG" },
  })
end)
if not ok then
  say("setup failed: " .. tostring(err))
  vim.cmd("cquit 1")
end

local chat
local asked = 0

-- The permission question: press the chat buffer's "Accept" key, as a user does.
vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionToolApprovalRequested",
  callback = function(ev)
    asked = asked + 1
    local buf = ev.data and ev.data.bufnr or (chat and chat.bufnr)
    say("asked: " .. tostring(ev.data and ev.data.name))
    vim.schedule(function()
      for _, m in ipairs(vim.api.nvim_buf_get_keymap(buf, "n")) do
        if m.desc == "Accept" and m.callback then
          say("pressed: " .. m.lhs)
          m.callback()
          return
        end
      end
      say("no Accept key on the chat buffer")
    end)
  end,
})

vim.api.nvim_create_autocmd("User", {
  pattern = "CodeCompanionChatDone",
  callback = function()
    vim.schedule(function()
      local text = table.concat(vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false), "\n")
      local f = assert(io.open(env("RESULT") .. ".chat", "w"))
      f:write(text)
      f:close()
      -- CodeCompanion's own log of the JSON-RPC traffic, kept for the test.
      local rpc = chat.acp_connection and chat.acp_connection._rpc_log
      if rpc and rpc.path then
        local src = io.open(rpc.path, "r")
        if src then
          local dst = assert(io.open(env("RESULT") .. ".rpc", "w"))
          dst:write(src:read("*a"))
          dst:close()
          src:close()
        end
      end
      say("done; asked " .. asked)
      vim.cmd("qall!")
    end)
  end,
})

-- Run fn as CodeCompanion's async code expects: in a coroutine whose
-- yields hand over a function that resumes it. Debian's LuaJIT is built with
-- Lua 5.2 compatibility, where coroutine.running() is true on the main
-- thread too, so CodeCompanion's connection takes its async path (yield)
-- even from a plain callback, and must be given a coroutine to yield from.
local function run(fn)
  local co = coroutine.create(fn)
  local function step(...)
    local ok, defer = coroutine.resume(co, ...)
    if not ok then
      say("error: " .. tostring(defer))
      vim.cmd("cquit 1")
      return
    end
    if coroutine.status(co) ~= "dead" and type(defer) == "function" then
      defer(step)
    end
  end
  step()
end

-- Open the chat as a user does, wait for its connection to have a session
-- (CodeCompanion connects in the background when a chat opens; a prompt
-- submitted before that races it), then type the prompt and submit it.
vim.schedule(function()
  run(function()
    chat = require("codecompanion").chat({ params = { adapter = "agentls" } })
    say("chat opened")
  end)
  local ready = vim.wait(30000, function()
    return chat ~= nil and chat.acp_connection ~= nil and chat.acp_connection:is_connected()
  end, 20)
  if not ready then
    say("no ACP session")
    vim.cmd("cquit 1")
    return
  end
  local conn = chat.acp_connection
  say("session " .. conn.session_id)
  -- The model picker CodeCompanion builds from the agent's config option
  -- of category model, and the slash commands it registered.
  local models = conn:get_models()
  if models then
    local ids = {}
    for _, m in ipairs(models.availableModels) do
      table.insert(ids, m.modelId)
    end
    say("models: " .. tostring(models.currentModelId) .. " of " .. table.concat(ids, ","))
  else
    say("models: none")
  end
  local cmds = require("codecompanion.interactions.chat.acp.commands")
  vim.wait(20000, function()
    return #(cmds.get_commands_for_session(conn.session_id) or {}) > 0
  end, 20)
  local names = {}
  for _, c in ipairs(cmds.get_commands_for_session(conn.session_id) or {}) do
    table.insert(names, c.name)
  end
  say("commands: " .. table.concat(names, ","))
  run(function()
    -- Pick the second model as the chat's model picker does.
    say("set model: " .. tostring(chat:change_model({ model = "fake-b" }) ~= nil))
    -- REVIEW=1: agentls's mode option to "ask", so each edit is a
    -- permission question carrying its diff.
    if os.getenv("REVIEW") == "1" then
      say("set mode: " .. tostring(conn:set_config_option("mode", "ask")))
    end
    chat:add_buf_message({ role = "user", content = "Replace hello with goodbye in hello.txt, then record that it ran" })
    chat:submit()
  end)
end)
