-- Fetching the agentls server from the project's releases when it is not on
-- PATH: the first start asks (never a silent download), then downloads this
-- platform's archive and checksums.txt, checks the archive's SHA-256,
-- unpacks the binary into stdpath('data')/agentls/bin and uses it from then
-- on. setup{ fetch = false } turns the offer off; fetch.url points at
-- another release (a mirror, or a file:// directory of `make dist`).
local M = {}

M.default_url = 'https://github.com/agentls/agentls/releases/latest/download'

local asked = false -- asked this session (a "no" is not asked again)

local function exe_name()
  return vim.fn.has('win32') == 1 and 'agentls.exe' or 'agentls'
end

function M.dir(opts)
  return (opts and opts.dir) or (vim.fn.stdpath('data') .. '/agentls/bin')
end

-- installed returns the path of a binary fetched earlier, or nil.
function M.installed(opts)
  local p = M.dir(opts) .. '/' .. exe_name()
  if vim.fn.executable(p) == 1 then
    return p
  end
end

-- platform returns the release archive's name for this machine, or nil and
-- why not.
function M.archive()
  local u = (vim.loop or vim.uv).os_uname()
  local os = ({ Linux = 'linux', Darwin = 'darwin', Windows_NT = 'windows' })[u.sysname]
  local arch = ({ x86_64 = 'amd64', amd64 = 'amd64', AMD64 = 'amd64', aarch64 = 'arm64', arm64 = 'arm64', ARM64 = 'arm64' })[u.machine]
  if not os or not arch then
    return nil, ('no release for %s %s'):format(u.sysname, u.machine)
  end
  return ('agentls_%s_%s.%s'):format(os, arch, os == 'windows' and 'zip' or 'tar.gz')
end

local function run(argv)
  local out = vim.fn.system(argv)
  if vim.v.shell_error ~= 0 then
    return nil, table.concat(argv, ' ') .. ': ' .. vim.trim(out)
  end
  return out
end

local function sha256(path)
  local tries = {
    { 'sha256sum', path },
    { 'shasum', '-a', '256', path },
    { 'certutil', '-hashfile', path, 'SHA256' },
  }
  for _, argv in ipairs(tries) do
    if vim.fn.executable(argv[1]) == 1 then
      local out, err = run(argv)
      if not out then
        return nil, err
      end
      local h = out:match('(%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x%x)')
      if h then
        return h:lower()
      end
    end
  end
  return nil, 'no sha256sum, shasum or certutil to check the download with'
end

-- download fetches the archive and checksums.txt from url, checks the
-- archive against its line in checksums.txt and unpacks the binary into
-- dir. Returns the binary's path, or nil and what went wrong (nothing is
-- left behind in dir then).
function M.download(url, dir)
  local name, why = M.archive()
  if not name then
    return nil, why
  end
  if vim.fn.executable('curl') == 0 then
    return nil, 'curl is needed to download agentls'
  end
  local tmp = vim.fn.tempname()
  vim.fn.mkdir(tmp, 'p')
  local function fail(msg)
    vim.fn.delete(tmp, 'rf')
    return nil, msg
  end
  for _, f in ipairs({ name, 'checksums.txt' }) do
    local ok, err = run({ 'curl', '-fsSL', '--retry', '2', '-o', tmp .. '/' .. f, url .. '/' .. f })
    if not ok then
      return fail(err)
    end
  end
  local want
  for line in io.lines(tmp .. '/checksums.txt') do
    local h, f = line:match('^(%x+)%s+%*?(%S+)$')
    if f == name then
      want = h:lower()
    end
  end
  if not want then
    return fail('checksums.txt has no line for ' .. name)
  end
  local got, err = sha256(tmp .. '/' .. name)
  if not got then
    return fail(err)
  end
  if got ~= want then
    return fail(('%s: SHA-256 %s, checksums.txt says %s'):format(name, got, want))
  end
  local unpacked = tmp .. '/x'
  vim.fn.mkdir(unpacked, 'p')
  local ok
  ok, err = run({ 'tar', '-xf', tmp .. '/' .. name, '-C', unpacked })
  if not ok then
    return fail(err)
  end
  local exe = exe_name()
  if vim.fn.filereadable(unpacked .. '/' .. exe) == 0 then
    return fail(name .. ' holds no ' .. exe)
  end
  vim.fn.mkdir(dir, 'p')
  local dest = dir .. '/' .. exe
  if vim.fn.rename(unpacked .. '/' .. exe, dest) ~= 0 then
    return fail('cannot move ' .. exe .. ' into ' .. dir)
  end
  if vim.fn.has('win32') == 0 then
    vim.fn.setfperm(dest, 'rwxr-xr-x')
  end
  vim.fn.delete(tmp, 'rf')
  return dest
end

-- resolve returns the command to start the server with: cmd when its
-- program is on PATH (or is a path), else a binary fetched earlier, else,
-- after asking once, one fetched now. nil when there is none.
function M.resolve(cmd, opts)
  if opts == false or type(cmd) ~= 'table' or cmd[1] ~= 'agentls' or vim.fn.executable('agentls') == 1 then
    return cmd
  end
  opts = opts or {}
  local function with(path)
    local c = vim.deepcopy(cmd)
    c[1] = path
    return c
  end
  local have = M.installed(opts)
  if have then
    return with(have)
  end
  if asked then
    return nil
  end
  asked = true
  local name, why = M.archive()
  if not name then
    vim.notify('agentls: not on PATH, and ' .. why .. ': install it by hand', vim.log.levels.WARN)
    return nil
  end
  local url = opts.url or M.default_url
  local dir = M.dir(opts)
  local msg = ('agentls is not on PATH.\nDownload %s from %s\ninto %s (its SHA-256 checked against checksums.txt)?'):format(name, url, dir)
  if vim.fn.confirm(msg, '&Download\n&Not now', 2, 'Question') ~= 1 then
    vim.notify('agentls: not downloaded; put agentls on PATH, or set cmd in setup{}', vim.log.levels.INFO)
    return nil
  end
  vim.notify('agentls: downloading ' .. name .. ' …', vim.log.levels.INFO)
  local path, err = M.download(url, dir)
  if not path then
    vim.notify('agentls: download failed: ' .. err, vim.log.levels.ERROR)
    return nil
  end
  vim.notify('agentls: installed ' .. path, vim.log.levels.INFO)
  return with(path)
end

return M
