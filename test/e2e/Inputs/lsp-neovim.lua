-- Headless Neovim (0.7+, its built-in LSP client) against `libtorch-tidy lsp`:
-- open a file, wait for the torch- diagnostics, apply the quick fix through
-- vim.lsp.buf.code_action (the menu answered by choosing the fix-it), save,
-- wait for the new diagnostics. Writes what the user would see to $LTT_OUT.
--   LTT_DRIVER=... LTT_ROOT=... LTT_OUT=... nvim --headless -u NONE -c 'luafile THIS' FILE
local out = assert(io.open(os.getenv('LTT_OUT'), 'w'))
local function log(fmt, ...)
  out:write(string.format(fmt, ...) .. '\n')
  out:flush()
end
local function finish(code)
  out:close()
  vim.cmd((code == 0 and 'qall!' or 'cquit! ' .. code))
end

local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = 'libtorch-tidy',
  cmd = { os.getenv('LTT_DRIVER'), 'lsp' },
  root_dir = os.getenv('LTT_ROOT'),
})
vim.lsp.buf_attach_client(bufnr, client_id)

local function torch_diagnostics()
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'libtorch-tidy' then
      table.insert(found, d)
    end
  end
  return found
end

local timeout = tonumber(os.getenv('LTT_TIMEOUT_MS') or '600000')
local started = vim.loop.hrtime()
if not vim.wait(timeout, function() return #torch_diagnostics() > 0 end, 200) then
  log('no diagnostics within %d ms', timeout)
  return finish(1)
end
local diags = torch_diagnostics()
log('diagnostics: %d after %.1f s', #diags, (vim.loop.hrtime() - started) / 1e9)
for _, d in ipairs(diags) do
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '-'
  log('%d:%d %s: %s', d.lnum + 1, d.col + 1, code, d.message)
end

-- The quick fix, the way a user takes it: cursor on the finding, code action,
-- the menu's fix-it entry.
local target = diags[1]
vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
local chosen
vim.ui.select = function(items, _, on_choice)
  for _, item in ipairs(items) do
    local action = item[2] or item.action
    log('offered: %s', action.title)
    if not chosen and action.title:match('^Apply the fix%-it') then
      chosen = item
    end
  end
  on_choice(chosen)
end
vim.lsp.buf.code_action()
if not vim.wait(60000, function() return chosen ~= nil and vim.bo[bufnr].modified end, 100) then
  log('the quick fix was not applied')
  return finish(1)
end
log('applied: %s', (chosen[2] or chosen.action).title)

-- Saved: analysed again.
vim.cmd('write')
started = vim.loop.hrtime()
-- Until the new run publishes, the old findings stay, marked stale.
local function fixed()
  for _, d in ipairs(torch_diagnostics()) do
    if d.message:find('(stale:', 1, true) or (d.lnum == target.lnum and d.message == target.message) then
      return false
    end
  end
  return true
end
if not vim.wait(timeout, fixed, 200) then
  log('the finding is still reported after the save')
  return finish(1)
end
local left = torch_diagnostics()
log('after the save: %d diagnostics after %.1f s', #left, (vim.loop.hrtime() - started) / 1e9)
for _, d in ipairs(left) do
  log('%d:%d %s', d.lnum + 1, d.col + 1, d.message)
end
vim.lsp.stop_client(client_id)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 100)
return finish(0)
