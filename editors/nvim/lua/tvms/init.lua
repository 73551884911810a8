-- tvms for Neovim: the `tvms lsp` client on Python buffers (vim.lsp.start on 0.8+, start_client +
-- buf_attach_client on 0.7), code lenses ("▶ Run main", run here through the tvms.run command),
-- :TvmsRun, :TvmsViewIR, :TvmsLint, and tree-sitter highlighting of TVMScript (the pinned python
-- parser built into parser/python.so, the queries of grammar/queries).
local M = {}

local defaults = {
  cmd = nil,               -- default: { "tvms", "lsp" }; or { "/path/to/tvms", "lsp" }
  filetypes = { "python" },
  root_markers = { "pyproject.toml", ".git" },
  settings = {},           -- initializationOptions, e.g. { tvms = { lint = { ignore = { "TVS205" } } } }
  run = { device = {}, timeout_ms = 300000, params = nil },  -- params: a .safetensors/.npz weights file (tvms run --params)
  codelens = true,
  inlay_hints = true,      -- Neovim 0.10+: the deduced struct info after each binding
  open_graph = true,       -- :TvmsGraph opens the SVG with the system viewer
  -- Buffer-local maps set on attach (Neovim 0.7's K runs keywordprg, pydoc for Python, otherwise).
  -- false turns them all off; set one to false to leave that key alone.
  keymaps = { hover = "K", definition = "gd", references = "gr", rename = "<leader>rn", code_action = "<leader>ca" },
  highlight = true,        -- tree-sitter highlighting with the TVMScript queries (needs parser/python.so)
  install_parser = true,   -- build parser/python.so from the pinned grammar at setup when it is missing
  on_attach = nil,
}

M.config = vim.deepcopy(defaults)
M.client_id = nil  -- Neovim 0.7: the one client started for every buffer

local plugin_root = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h:h")

local function binary()
  local cmd = M.config.cmd or { "tvms", "lsp" }
  return cmd[1]
end

local function root_dir(fname)
  local dir = vim.fn.fnamemodify(fname, ":p:h")
  for _, marker in ipairs(M.config.root_markers) do
    local found = vim.fn.findfile(marker, dir .. ";")
    if found == "" then found = vim.fn.finddir(marker, dir .. ";") end
    if found ~= "" then return vim.fn.fnamemodify(found, ":p:h") end
  end
  return dir
end

local function client_for(bufnr)
  -- get_clients since 0.10 (buf_get_clients is deprecated there), buf_get_clients before.
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(clients) do
    if c.name == "tvms" then return c end
  end
  return nil
end

-- Client methods are called with ':' from 0.11 on (the '.' form is deprecated there).
local modern = vim.fn.has("nvim-0.11") == 1
local function request(client, method, params, handler, bufnr)
  if modern then return client:request(method, params, handler, bufnr) end
  return client.request(method, params, handler, bufnr)
end
local function request_sync(client, method, params, timeout, bufnr)
  if modern then return client:request_sync(method, params, timeout, bufnr) end
  return client.request_sync(method, params, timeout, bufnr)
end

-- The run's answer: a scratch buffer with the summary, and vim.g.tvms_last_run for scripts.
-- A run's error, for this editor: the CLI's `--device X=cpu` advice is the plugin's run.device setting.
local function run_error_text(message)
  local vdevice = message:match("`%-%-device ([^=`]+)=cpu`")
  if vdevice then
    message = message:gsub("`%-%-device [^`]+`", "run.device")
    message = message .. "\n(in Neovim: require('tvms').setup{ run = { device = { [\"" .. vdevice .. "\"] = \"cpu\" } } })"
  end
  return message
end
M.run_error_text = run_error_text

local function show_run(err, result, fname)
  if err then
    local message = run_error_text(err.message)
    vim.g.tvms_last_run = "error: " .. message
    -- One notification (vim.notify), not a multi-line echo that waits for ENTER.
    vim.schedule(function() vim.notify("tvms run " .. fname .. ": " .. message, vim.log.levels.ERROR) end)
    return
  end
  vim.g.tvms_last_run = result.text
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result.text, "\n", { trimempty = true }))
  vim.api.nvim_buf_set_option(buf, "bufhidden", "wipe")
  vim.cmd("botright split")
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_win_set_height(0, math.min(12, #vim.api.nvim_buf_get_lines(buf, 0, -1, false) + 1))
  vim.cmd("wincmd p")
  print("tvms run " .. fname .. ": " .. (vim.split(result.text, "\n")[1] or ""))
end

-- Runs `fname` of the buffer through workspace/executeCommand tvms.run (the server runs it in a
-- child process and answers with the summary).
function M.run(bufnr, fname, inputs, params)
  bufnr = bufnr == 0 and vim.api.nvim_get_current_buf() or bufnr
  local client = client_for(bufnr)
  if not client then return vim.notify("tvms: no tvms language server on this buffer", vim.log.levels.ERROR) end
  local arg = { uri = vim.uri_from_bufnr(bufnr), ["function"] = fname, timeoutMs = M.config.run.timeout_ms }
  if inputs and next(inputs) then arg.inputs = inputs end
  if next(M.config.run.device) then arg.device = M.config.run.device end
  if params or M.config.run.params then arg.params = params or M.config.run.params end
  vim.g.tvms_last_run = nil
  request(client, "workspace/executeCommand", { command = "tvms.run", arguments = { arg } }, function(err, result)
    show_run(err, result, fname)
  end, bufnr)
end

-- The @R.function around the cursor (from the server's code lenses), else "main".
local function function_at_cursor(bufnr)
  local client = client_for(bufnr)
  if not client then return "main" end
  local r = request_sync(client, "textDocument/codeLens", { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, 5000, bufnr)
  local best, line = "main", vim.api.nvim_win_get_cursor(0)[1] - 1
  for _, lens in ipairs((r and r.result) or {}) do
    if lens.range.start.line <= line and lens.command and lens.command.command == "tvms.run" then
      best = lens.command.arguments[1]["function"]
    end
  end
  return best
end

function M.view_ir(bufnr, pass)
  local client = client_for(bufnr)
  if not client then return vim.notify("tvms: no tvms language server on this buffer", vim.log.levels.ERROR) end
  request(client, "tvms/viewIR", { uri = vim.uri_from_bufnr(bufnr), pass = pass }, function(err, result)
    if err then return vim.notify("tvms: " .. err.message, vim.log.levels.ERROR) end
    local buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(result.text, "\n"))
    vim.b[buf].tvms_no_attach = true  -- a view, not a document: no server, no run lens
    vim.api.nvim_buf_set_option(buf, "filetype", "python")
    vim.api.nvim_buf_set_option(buf, "bufhidden", "wipe")
    vim.cmd("vsplit")
    vim.api.nvim_win_set_buf(0, buf)
  end, bufnr)
end

-- :TvmsLint: `tvms lint --output-format json` on the buffer's text (saved or not; stdin, with the
-- buffer's name), into the quickfix list: each diagnostic with its severity, then its related
-- locations (the origin chain) as lines of their own.
local severity_type = { error = "E", warning = "W", info = "I" }
function M.lint(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  local text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
  local out = vim.fn.system({ binary(), "lint", "--output-format", "json", "--stdin-filename", file, "-" }, text)
  local ok, diagnostics = pcall(vim.fn.json_decode, out)
  if not ok or type(diagnostics) ~= "table" then
    return vim.notify("tvms lint: " .. out, vim.log.levels.ERROR)
  end
  local items = {}
  for _, d in ipairs(diagnostics) do
    table.insert(items, { bufnr = bufnr, lnum = d.location.row, col = d.location.column,
                          end_lnum = d.end_location.row, end_col = d.end_location.column,
                          text = d.code .. " " .. d.message, type = severity_type[d.severity] or "E" })
    for _, r in ipairs(d.related or {}) do
      table.insert(items, { bufnr = bufnr, lnum = r.location.row, col = r.location.column,
                            text = "  note: " .. r.message, type = "I" })
    end
  end
  vim.fn.setqflist({}, " ", { title = "tvms lint", items = items })
  return items
end

-- The diagnostic float of tvms's diagnostics: the rule code first, then the message, then the
-- related locations (where a value's vdevice came from), one per line.
local function float_format(d)
  local lsp = d.user_data and d.user_data.lsp or {}
  local code = d.code or lsp.code
  local lines = { (code and (code .. ": ") or "") .. d.message }
  for _, r in ipairs(lsp.relatedInformation or {}) do
    table.insert(lines, string.format("  %d:%d: %s", r.location.range.start.line + 1, r.location.range.start.character + 1, r.message))
  end
  return table.concat(lines, "\n")
end
M.float_format = float_format

-- Neovim reads the float's format from the global config (0.7 ignores a namespace's), so tvms's
-- format wraps whatever format was there and applies to tvms's diagnostics only.
local function install_float_format()
  if M.float_format_installed then return end
  M.float_format_installed = true
  local config = vim.diagnostic.config() or {}
  local float = type(config.float) == "table" and vim.deepcopy(config.float) or {}
  local previous = float.format
  float.format = function(d)
    if d.source == "tvms" or (d.user_data and d.user_data.lsp and d.user_data.lsp.source == "tvms") then return float_format(d) end
    return previous and previous(d) or d.message
  end
  vim.diagnostic.config({ float = float })
end

-- :TvmsGraph [function]: `tvms graph` of the buffer's file to an SVG (values coloured by vdevice,
-- copies labelled with their bytes), opened with the system viewer (vim.ui.open on 0.10+, else
-- xdg-open); vim.g.tvms_last_graph is its path.
function M.graph(bufnr, fname)
  local file = vim.api.nvim_buf_get_name(bufnr)
  local svg = vim.fn.tempname() .. ".svg"
  local out = vim.fn.system({ binary(), "graph", file, "--function", fname or "main", "-o", svg })
  if vim.v.shell_error ~= 0 then
    vim.g.tvms_last_graph = nil
    return vim.notify("tvms graph: " .. out, vim.log.levels.ERROR)
  end
  vim.g.tvms_last_graph = svg
  if M.config.open_graph then
    if vim.ui.open then vim.ui.open(svg) elseif vim.fn.executable("xdg-open") == 1 then vim.fn.jobstart({ "xdg-open", svg }, { detach = true }) end
  end
  return svg
end

-- Builds parser/python.so from the pinned grammar's C sources (grammar/node_modules after ./dev build).
function M.install_parser(grammar_src)
  grammar_src = grammar_src or (plugin_root .. "/../../grammar/node_modules/tree-sitter-python/src")
  local target = plugin_root .. "/parser/python.so"
  vim.fn.mkdir(plugin_root .. "/parser", "p")
  local cc = vim.env.CC or "cc"
  local out = vim.fn.system({ cc, "-shared", "-fPIC", "-O2", "-I", grammar_src, grammar_src .. "/parser.c", grammar_src .. "/scanner.c", "-o", target })
  if vim.v.shell_error ~= 0 then
    vim.notify("tvms: building the python parser failed: " .. out, vim.log.levels.ERROR)
    return nil
  end
  return target
end

local function highlight(bufnr)
  if not M.config.highlight or #vim.api.nvim_get_runtime_file("parser/python.so", false) == 0 then return end
  local ok, parser = pcall(vim.treesitter.get_parser, bufnr, "python")
  if not ok then return end
  if vim.treesitter.start then pcall(vim.treesitter.start, bufnr, "python")
  else vim.treesitter.highlighter.new(parser) end
end

local function set_keymaps(bufnr)
  local maps = M.config.keymaps
  if not maps then return end
  local actions = { hover = vim.lsp.buf.hover, definition = vim.lsp.buf.definition, references = vim.lsp.buf.references,
                    rename = vim.lsp.buf.rename, code_action = vim.lsp.buf.code_action }
  for name, lhs in pairs(maps) do
    if lhs and actions[name] then
      vim.keymap.set("n", lhs, actions[name], { buffer = bufnr, desc = "tvms: " .. name:gsub("_", " ") })
    end
  end
end

local function on_attach(client, bufnr)
  set_keymaps(bufnr)
  if M.config.inlay_hints and vim.lsp.inlay_hint and vim.lsp.inlay_hint.enable then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })  -- Neovim 0.10+
  end
  if M.config.codelens then
    vim.lsp.codelens.refresh()
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, { buffer = bufnr, callback = function() vim.lsp.codelens.refresh() end })
  end
  if M.config.on_attach then M.config.on_attach(client, bufnr) end
end

local function client_config(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  return {
    name = "tvms",
    cmd = M.config.cmd or { "tvms", "lsp" },
    root_dir = root_dir(fname ~= "" and fname or vim.fn.getcwd() .. "/x"),
    init_options = M.config.settings,
    on_attach = on_attach,
  }
end

function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.b[bufnr].tvms_no_attach then return end
  if vim.lsp.start then
    vim.lsp.start(client_config(bufnr), { bufnr = bufnr })
  else
    if not M.client_id or not vim.lsp.get_client_by_id(M.client_id) then M.client_id = vim.lsp.start_client(client_config(bufnr)) end
    if M.client_id then vim.lsp.buf_attach_client(bufnr, M.client_id) end
  end
  highlight(bufnr)
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  if vim.fn.executable(binary()) ~= 1 then
    vim.notify("tvms: cannot run '" .. binary() .. "': set cmd in require('tvms').setup{} or put tvms on PATH", vim.log.levels.ERROR)
    return false
  end
  if M.config.highlight and M.config.install_parser and #vim.api.nvim_get_runtime_file("parser/python.so", false) == 0 then
    local src = plugin_root .. "/../../grammar/node_modules/tree-sitter-python/src"
    if vim.fn.filereadable(src .. "/parser.c") == 1 then M.install_parser(src) end
  end
  -- A code lens click runs here, so the summary is shown (not only sent to the server).
  vim.lsp.commands["tvms.run"] = function(command, ctx)
    local a = command.arguments[1]
    M.run(ctx.bufnr, a["function"], a.inputs)
  end
  install_float_format()
  local group = vim.api.nvim_create_augroup("tvms", { clear = true })
  vim.api.nvim_create_autocmd("FileType", { group = group, pattern = M.config.filetypes, callback = function(ev) M.attach(ev.buf) end })
  -- Buffers whose FileType came before setup (a lazy-loading plugin manager with ft = "python").
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.config.filetypes, vim.bo[buf].filetype) then M.attach(buf) end
  end
  vim.api.nvim_create_user_command("TvmsRun", function(c)
    local bufnr = vim.api.nvim_get_current_buf()
    local fname, inputs, params = c.fargs[1], {}, nil
    for i = 2, #c.fargs do
      local k, v = c.fargs[i]:match("^([^=]+)=(.+)$")
      if not k then return vim.notify("tvms: '" .. c.fargs[i] .. "' is not NAME=random[:seed], NAME=FILE.npy or params=FILE", vim.log.levels.ERROR) end
      if k == "params" then params = v else inputs[k] = v end
    end
    M.run(bufnr, fname or function_at_cursor(bufnr), inputs, params)
  end, { nargs = "*", desc = "Run a TVMScript function: :TvmsRun [function] [NAME=random|NAME=file.npy]... [params=FILE.safetensors]" })
  vim.api.nvim_create_user_command("TvmsViewIR", function(c) M.view_ir(vim.api.nvim_get_current_buf(), c.args) end, {
    nargs = 1, complete = function() return { "parsed", "Normalize", "RealizeVDevice", "OffloadLibraries", "LegalizeOps", "FuseOps", "FuseTIR", "RewriteDataflowReshape", "LowerToVM" } end,
    desc = "Show the module after a pass" })
  vim.api.nvim_create_user_command("TvmsLint", function() M.lint(vim.api.nvim_get_current_buf()) end, { desc = "tvms lint into the quickfix list" })
  vim.api.nvim_create_user_command("TvmsGraph", function(c)
    local bufnr = vim.api.nvim_get_current_buf()
    M.graph(bufnr, c.fargs[1] or function_at_cursor(bufnr))
  end, { nargs = "?", desc = "The function's dataflow coloured by vdevice, as an SVG" })
  vim.api.nvim_create_user_command("TvmsInstallParser", function() M.install_parser() end, { desc = "Build parser/python.so from the pinned grammar" })
  return true
end

return M
