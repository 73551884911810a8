#!/usr/bin/env bash
# Remakes docs/screenshots/nvim-vdevice-diagnostic.png: real Neovim with the tvms plugin in a tmux
# pane on tests/corpus/lint/undeclared_vdevice.py, the vdevice diagnostics shown, captured with
# `tmux capture-pane -e` and drawn to PNG by render_ansi.py. Needs ./dev build first.
#   docs/screenshots/make_nvim_screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
need=()
for p in tmux neovim python3-pil fonts-dejavu-core; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; else sudo apt-get update -qq && sudo apt-get install -y -qq "${need[@]}" >/dev/null; fi
fi
test -x build/bin/tvms || { echo "make_nvim_screenshot: run ./dev build first" >&2; exit 1; }
work=$(mktemp -d)
trap 'tmux kill-session -t tvms-shot 2>/dev/null || true; rm -rf "$work"' EXIT
cp tests/corpus/lint/undeclared_vdevice.py "$work/model.py"
cat > "$work/init.lua" <<LUA
vim.opt.runtimepath:prepend("$root/editors/nvim")
vim.cmd("filetype on")
vim.cmd("syntax on")
vim.opt.number = true
vim.opt.signcolumn = "yes"
vim.opt.swapfile = false
vim.diagnostic.config({ virtual_text = { prefix = "●" }, severity_sort = true })
local tvms = require("tvms")
tvms.install_parser("$root/grammar/node_modules/tree-sitter-python/src")
tvms.setup({ cmd = { "$root/build/bin/tvms", "lsp" } })
LUA
tmux kill-session -t tvms-shot 2>/dev/null || true
tmux new-session -d -s tvms-shot -x 110 -y 24 -c "$work" "TERM=xterm-256color nvim -u $work/init.lua -i NONE model.py"
sleep 4  # the server starts, lints and publishes
tmux send-keys -t tvms-shot "11G" ""
sleep 1
tmux send-keys -t tvms-shot ":lua vim.diagnostic.open_float()" Enter
sleep 1
tmux capture-pane -t tvms-shot -p -e > "$work/pane.ans"
/usr/bin/python3 docs/screenshots/render_ansi.py "$work/pane.ans" docs/screenshots/nvim-vdevice-diagnostic.png 110 24
echo "wrote docs/screenshots/nvim-vdevice-diagnostic.png"
