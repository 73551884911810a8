-- End to end in real headless Neovim (Debian 12's 0.7 or newer) against this build's tvms:
--   nvim --headless -u NONE -i NONE -c "luafile tests/nvim/e2e.lua"   (TVMS_BINARY, TVMS_SOURCE_DIR)
-- A vdevice diagnostic arrives with its code and position, hover answers, the quick fix applied
-- through the codeAction request removes it, :TvmsRun prints a CPU-only module's summary, :TvmsLint
-- fills the quickfix list, and the TVMScript queries highlight with the pinned python parser.
-- Prints "N passed, N failed" and exits non-zero on a failure.
local source = vim.env.TVMS_SOURCE_DIR or vim.fn.getcwd()
local binary = vim.env.TVMS_BINARY or (source .. "/build/bin/tvms")
vim.opt.runtimepath:prepend(source .. "/editors/nvim")
vim.opt.swapfile = false
vim.cmd("filetype on")  -- -u NONE leaves detection off; the plugin attaches on FileType python

local passed, failed = 0, 0
local function check(name, ok, detail)
  if ok then passed = passed + 1 else failed = failed + 1 end
  io.stdout:write((ok and "ok   " or "FAIL ") .. name .. ((not ok and detail) and (": " .. tostring(detail)) or "") .. "\n")
end
local function finish()
  io.stdout:write(string.format("%d passed, %d failed\n", passed, failed))
  vim.cmd((failed == 0 and "qall!" or "cquit! 1"))
end

local ok_run, err = pcall(function()
  local tvms = require("tvms")
  -- A copy of the corpus file with an undeclared vdevice ("cuda:1" on line 11, the first TVS201),
  -- opened before setup: its FileType has passed, as with a lazy-loading plugin manager.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local file = dir .. "/undeclared.py"
  vim.fn.writefile(vim.fn.readfile(source .. "/tests/corpus/lint/undeclared_vdevice.py"), file)
  vim.cmd("edit " .. file)
  local bufnr = vim.api.nvim_get_current_buf()
  -- setup builds parser/python.so from the pinned grammar when it is missing.
  vim.fn.delete(source .. "/editors/nvim/parser/python.so")
  check("setup", tvms.setup({ cmd = { binary, "lsp" } }))
  check("setup built the python parser from the pinned grammar", vim.fn.filereadable(source .. "/editors/nvim/parser/python.so") == 1)
  local function tvs201()
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
      if code == "TVS201" then table.insert(out, d) end
    end
    table.sort(out, function(a, b) return a.lnum < b.lnum end)
    return out
  end
  check("the client attaches to a buffer opened before setup", vim.wait(10000, function() return #vim.lsp.buf_get_clients(bufnr) > 0 end, 20))
  local k = vim.fn.maparg("K", "n", false, true)
  check("K is mapped to hover in the buffer (0.7's K runs pydoc)", type(k) == "table" and k.buffer == 1, vim.inspect(k))
  check("gd is mapped too", (vim.fn.maparg("gd", "n", false, true) or {}).buffer == 1)
  check("TVS201 diagnostics arrive", vim.wait(15000, function() return #tvs201() == 2 end, 20), #tvs201())
  local first = tvs201()[1]
  if not first then error("no TVS201 diagnostic to go on with") end
  local line = vim.api.nvim_buf_get_lines(bufnr, 10, 11, false)[1]
  check("at the undeclared \"cuda:1\" (line 11)", first and first.lnum == 10 and first.col == (line:find('"cuda:1"', 1, true) - 1),
        first and (first.lnum .. ":" .. first.col))

  -- The diagnostic float starts with the rule code.
  vim.api.nvim_win_set_cursor(0, { first.lnum + 1, first.col })
  local fok, fbuf = pcall(vim.diagnostic.open_float, { scope = "cursor" })
  if not fok or type(fbuf) ~= "number" then fok, fbuf = pcall(vim.diagnostic.open_float, bufnr, { scope = "cursor" }) end
  local floatText = (fok and type(fbuf) == "number") and table.concat(vim.api.nvim_buf_get_lines(fbuf, 0, -1, false), "\n") or ""
  check("the diagnostic float shows the rule code", floatText:find("TVS201: ", 1, true) ~= nil, floatText)
  check("and the related locations", floatText:find('7:40: declared: "cuda:0"', 1, true) ~= nil, floatText)
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= "" then vim.api.nvim_win_close(w, true) end
  end

  -- Hover on x: its deduced struct info.
  local hover = vim.lsp.buf_request_sync(bufnr, "textDocument/hover",
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = 11, character = 8 } }, 5000)
  local text = ""
  for _, r in pairs(hover or {}) do if r.result then text = r.result.contents.value end end
  check("hover shows y's struct info", text:find("R.Tensor", 1, true) ~= nil, text)

  -- The quick fix for the first diagnostic, through textDocument/codeAction, applied as the editor does.
  local lsp_diag = first.user_data and first.user_data.lsp or nil
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = first.lnum, character = first.col }, ["end"] = { line = first.end_lnum, character = first.end_col } },
    context = { diagnostics = { lsp_diag } },
  }
  local actions = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 5000)
  local fix
  for _, r in pairs(actions or {}) do
    for _, a in ipairs(r.result or {}) do
      if not fix and a.edit and a.title:find("Declare", 1, true) then fix = a end
    end
  end
  check("a quick fix is offered", fix ~= nil)
  if fix then
    vim.lsp.util.apply_workspace_edit(fix.edit, "utf-16")
    check("after the fix one TVS201 is left (the other line)", vim.wait(15000, function() return #tvs201() == 1 end, 20), #tvs201())
    check("the one left is on line 15", tvs201()[1] and tvs201()[1].lnum == 14)
  end

  -- :TvmsRun on the CPU-only two-vdevice example.
  vim.cmd("edit " .. source .. "/examples/multi_cpu.py")
  local runbuf = vim.api.nvim_get_current_buf()
  vim.wait(10000, function() return #vim.lsp.buf_get_clients(runbuf) > 0 end, 20)
  vim.wait(10000, function() return #vim.diagnostic.get(runbuf) == 0 end, 50)
  vim.cmd("TvmsRun main")
  check(":TvmsRun prints the summary", vim.wait(60000, function() return vim.g.tvms_last_run ~= nil end, 50) and
        tostring(vim.g.tvms_last_run):find("copied between devices: 8192 bytes in 1 copies", 1, true) ~= nil, vim.g.tvms_last_run)
  check("the summary names the output's vdevice", tostring(vim.g.tvms_last_run):find('on "llvm:1"', 1, true) ~= nil)

  -- :TvmsRun main params=FILE: a safetensors file binding z (zeros) by name, so the product is zero.
  local weights = vim.fn.tempname() .. ".safetensors"
  local header = '{"z":{"dtype":"F32","shape":[32,16],"data_offsets":[0,2048]}}'
  header = header .. string.rep(" ", (8 - #header % 8) % 8)
  local f = io.open(weights, "wb")
  f:write(string.char(#header % 256, math.floor(#header / 256), 0, 0, 0, 0, 0, 0), header, string.rep("\0", 2048))
  f:close()
  vim.g.tvms_last_run = nil
  vim.cmd("TvmsRun main params=" .. weights)
  check(":TvmsRun params=FILE binds the weights file", vim.wait(60000, function() return vim.g.tvms_last_run ~= nil end, 50) and
        tostring(vim.g.tvms_last_run):find("min 0, max 0, mean 0", 1, true) ~= nil, vim.g.tvms_last_run)
  os.remove(weights)

  -- The code lens above @R.function runs the same way (vim.lsp.commands["tvms.run"]).
  vim.g.tvms_last_run = nil
  vim.lsp.codelens.refresh()
  local lenses = {}
  vim.wait(10000, function() lenses = vim.lsp.codelens.get(runbuf) or {}; return #lenses > 0 end, 50)
  check("one \"Run main\" lens", #lenses == 1 and lenses[1].command and lenses[1].command.title:find("Run main", 1, true) ~= nil, #lenses)
  if #lenses == 1 then
    vim.api.nvim_win_set_cursor(0, { lenses[1].range.start.line + 1, 0 })
    vim.lsp.codelens.run()
    check("the lens runs main", vim.wait(60000, function() return vim.g.tvms_last_run ~= nil end, 50) and
          tostring(vim.g.tvms_last_run):find("copied between devices", 1, true) ~= nil, vim.g.tvms_last_run)
  end

  -- :TvmsGraph draws the function's dataflow to an SVG (not opened here: no viewer in a test).
  tvms.config.open_graph = false
  vim.cmd("TvmsGraph main")
  local svg = vim.g.tvms_last_graph
  local svgText = svg and table.concat(vim.fn.readfile(svg), "\n") or ""
  check(":TvmsGraph writes the dataflow as SVG", svgText:find("<svg", 1, true) ~= nil and svgText:find("llvm:1", 1, true) ~= nil, svg)

  -- :TvmsViewIR shows the module after a pass in a new window.
  local windows = #vim.api.nvim_list_wins()
  vim.cmd("TvmsViewIR LegalizeOps")
  local shown = vim.wait(15000, function() return #vim.api.nvim_list_wins() > windows end, 50)
  local irText = shown and table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n") or ""
  check(":TvmsViewIR LegalizeOps shows the kernels", irText:find("@T.prim_func", 1, true) ~= nil and irText:find("R.call_tir", 1, true) ~= nil,
        irText:sub(1, 200))
  vim.wait(500)
  check("the IR view gets no language server (no run lens on a view)", #vim.lsp.buf_get_clients(0) == 0)
  vim.cmd("only")

  -- A run that fails (cuda without a GPU here) is one notification naming the plugin's run.device setting.
  local notified = {}
  local notify = vim.notify
  vim.notify = function(msg, level) table.insert(notified, msg) end
  vim.cmd("edit " .. source .. "/examples/cpu_gpu_mlp.py")
  local gpubuf = vim.api.nvim_get_current_buf()
  vim.wait(10000, function() return #vim.lsp.buf_get_clients(gpubuf) > 0 end, 20)
  vim.g.tvms_last_run = nil
  vim.cmd("TvmsRun main")
  vim.wait(60000, function() return vim.g.tvms_last_run ~= nil end, 50)
  vim.wait(2000, function() return #notified > 0 end, 20)
  vim.notify = notify
  local said = table.concat(notified, "\n")
  check("a failed run is a notification that names run.device", said:find("run = { device", 1, true) ~= nil, said)

  -- :TvmsLint on the original corpus file, then on the buffer's unsaved text.
  vim.cmd("edit " .. source .. "/tests/corpus/lint/undeclared_vdevice.py")
  local lintbuf = vim.api.nvim_get_current_buf()
  local function errors()
    local out = {}
    for _, item in ipairs(vim.fn.getqflist()) do if item.type == "E" then table.insert(out, item) end end
    return out
  end
  vim.cmd("TvmsLint")
  local qf = errors()
  check(":TvmsLint fills the quickfix list, errors as errors", #qf == 2 and qf[1].text:find("TVS201", 1, true) == 1 and qf[1].lnum == 11, #qf)
  local l11 = vim.api.nvim_buf_get_lines(lintbuf, 10, 11, false)[1]
  vim.api.nvim_buf_set_lines(lintbuf, 10, 11, false, { (l11:gsub('"cuda:1"', '"cuda:0"')) })
  vim.cmd("TvmsLint")
  check(":TvmsLint lints the unsaved buffer", #errors() == 1 and errors()[1].lnum == 15, #errors())
  vim.cmd("edit! " .. source .. "/tests/corpus/lint/undeclared_vdevice.py")

  -- Highlighting: the TVMScript queries load with the parser and capture R as a namespace.
  local get_query = (vim.treesitter.query and vim.treesitter.query.get) or vim.treesitter.get_query
  local qok, query = pcall(get_query, "python", "highlights")
  check("the TVMScript highlight query parses", qok and query ~= nil, query)
  if qok and query then
    local tree = vim.treesitter.get_parser(runbuf, "python"):parse()[1]
    local seen = {}
    for id, node in query:iter_captures(tree:root(), runbuf, 0, -1) do
      local name = query.captures[id]
      local t = vim.treesitter.query.get_node_text and vim.treesitter.query.get_node_text(node, runbuf) or vim.treesitter.get_node_text(node, runbuf)
      seen[name .. "=" .. t] = true
    end
    check("R is a namespace", seen["namespace=R"])
    check("R.matmul's op is a builtin", seen["function.builtin=matmul"])
    check("\"llvm:1\" is a vdevice string", seen['string.special="llvm:1"'])
  end
end)
if not ok_run then check("the test ran to the end", false, err) end
finish()
