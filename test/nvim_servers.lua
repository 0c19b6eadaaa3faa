-- Headless Neovim with an editor snippet of docs/editors.md as its init.lua,
-- started on a C++ file: which language servers the snippet started, and
-- the errors Neovim reported (v:errmsg), one line each, to $LTT_OUT.
--   LTT_OUT=... nvim --headless -u SNIPPET -i NONE -n -c 'luafile THIS' FILE.cpp
local out = assert(io.open(os.getenv('LTT_OUT'), 'w'))
local function servers()
  local found = {}
  for _, c in pairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    table.insert(found, c.name .. ': ' .. table.concat(c.config.cmd, ' '))
  end
  table.sort(found)
  return found
end
vim.wait(2000, function() return #servers() > 0 end, 100)
local started = servers()
out:write(string.format('filetype: %s\nservers: %d\n', vim.bo.filetype, #started))
for _, s in ipairs(started) do
  out:write('server ' .. s .. '\n')
end
out:write('errors: ' .. (vim.v.errmsg == '' and 'none' or vim.v.errmsg) .. '\n')
out:close()
vim.cmd('qall!')
