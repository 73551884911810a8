-- Neovim 0.11+: vim.lsp.config / vim.lsp.enable("tvms") read this file from the runtimepath.
return {
  cmd = { "tvms", "lsp" },
  filetypes = { "python" },
  root_markers = { "pyproject.toml", ".git" },
}
