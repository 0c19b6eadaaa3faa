-- Headless Neovim (0.7 and later) with the Neovim snippet of docs/editors.md
-- as its init.lua: what a user sees of libtorch-tidy-clangd while typing.
-- Writes one line per fact to $LTT_OUT, for FileCheck.
--   nvim --headless -u SNIPPET -i NONE -n -c 'luafile THIS' FILE
-- FILE is src/evaluate.cpp: its finding; a second evaluation function
-- typed at the end (not saved): its finding appears; the function deleted:
-- it goes; typed again and its quick fix taken through the code-action menu:
-- the buffer has the guard, the file on disk is unchanged, the finding is
-- gone. Then src/loop.cpp in the same editor: no finding until $LTT_THEN (a
-- shell command: the command line writing the linked summaries) has run and
-- the buffer is edited again.
-- The session ends with the errors Neovim reported (v:errmsg).
local out = assert(io.open(os.getenv('LTT_OUT'), 'w'))
local function log(fmt, ...)
  out:write(string.format(fmt, ...) .. '\n')
  out:flush()
end
local function finish(code)
  log('errors: %s', vim.v.errmsg == '' and 'none' or vim.v.errmsg)
  out:close()
  vim.cmd(code == 0 and 'qall!' or ('cquit! ' .. code))
end
local timeout = tonumber(os.getenv('LTT_TIMEOUT_MS') or '120000')

local function clients()
  local found = {}
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    table.insert(found, c)
  end
  return found
end

-- The diagnostics clangd published, per file: the buffer's version they
-- are of (clangd says which), so a wait ends on the current text's.
local published = {}
local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  publish(err, result, ctx, config)
  published[vim.uri_to_fname(result.uri)] = result.version or -1
end

local function rel(bufnr)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ':.')
end

local function findings(bufnr)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if tostring(d.code or ''):match('^torch%-') then
      table.insert(found, d)
    end
  end
  table.sort(found, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
  return found
end

-- Waits for the diagnostics of the buffer's current text, prints them.
local function show(bufnr, what)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local ok = vim.wait(timeout, function()
    local version = vim.lsp.util.buf_versions[bufnr]
    return published[name] ~= nil and (published[name] == -1 or published[name] >= version)
  end, 50)
  if not ok then
    log('%s: no diagnostics of version %s within %d ms', rel(bufnr), vim.lsp.util.buf_versions[bufnr], timeout)
    return finish(1)
  end
  local found = findings(bufnr)
  log('%s %s: %d findings', what, rel(bufnr), #found)
  for _, d in ipairs(found) do
    log('  %d:%d %s: %s', d.lnum + 1, d.col + 1, d.code, d.message)
  end
  return found
end

local function on_disk(bufnr)
  local f = assert(io.open(vim.api.nvim_buf_get_name(bufnr)))
  local text = f:read('*a')
  f:close()
  return text
end

local function buffer_text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n') .. '\n'
end

local MORE = {
  '',
  'double evaluate_more(Net &model, torch::Tensor x) {',
  '  return model(x).sum().item<double>();',
  '}',
}

local bufnr = vim.api.nvim_get_current_buf()
local saved = on_disk(bufnr)
if not show(bufnr, 'open') then return end
local names = {}
for _, c in ipairs(clients()) do
  table.insert(names, c.config.cmd[1])
end
log('server: %s', table.concat(names, ', '))

-- (a) Typing, not saving: the finding follows the buffer.
local last = vim.api.nvim_buf_line_count(bufnr)
vim.api.nvim_buf_set_lines(bufnr, last, last, false, MORE)
if not show(bufnr, 'typed') then return end
vim.api.nvim_buf_set_lines(bufnr, last, -1, false, {})
if not show(bufnr, 'deleted') then return end
vim.api.nvim_buf_set_lines(bufnr, last, last, false, MORE)
local typed = show(bufnr, 'typed again')
if not typed then return end

-- (b) The quick fix of the new finding, the way a user takes it: cursor on
-- it, code action, the menu's entry that inserts the guard.
local target = typed[#typed]
vim.api.nvim_win_set_cursor(0, { target.lnum + 1, target.col })
local chosen
vim.ui.select = function(items, _, on_choice)
  for _, item in ipairs(items) do
    local action = item[2] or item.action
    log('offered: %s', action.title:gsub('\n', '\\n'))
    if not chosen and action.title:match('NoGradGuard') then
      chosen = item
    end
  end
  on_choice(chosen)
end
local before = buffer_text(bufnr)
vim.lsp.buf.code_action()
if not vim.wait(timeout, function() return buffer_text(bufnr) ~= before end, 50) then
  log('the quick fix was not applied')
  return finish(1)
end
log('applied: %s', (chosen[2] or chosen.action).title:gsub('\n', '\\n'))
for n = target.lnum, target.lnum + 1 do
  log('line %d: %s', n + 1, vim.api.nvim_buf_get_lines(bufnr, n, n + 1, false)[1])
end
log('buffer: %s, on disk: %s', vim.bo[bufnr].modified and 'modified' or 'saved',
    on_disk(bufnr) == saved and 'as before' or 'changed')
if not show(bufnr, 'fixed') then return end

-- (c) A finding that needs another file's summary: the training loop of
-- loop.cpp calls a helper of steps.cpp.
vim.o.hidden = true
vim.cmd('edit src/loop.cpp')
local loop = vim.api.nvim_get_current_buf()
if not show(loop, 'open') then return end
vim.fn.system(os.getenv('LTT_THEN'))
log('command line: exit %d', vim.v.shell_error)
last = vim.api.nvim_buf_line_count(loop)
vim.api.nvim_buf_set_lines(loop, last, last, false, { '' })
if not show(loop, 'edited') then return end
log('clients: %d', #clients())
finish(0)
