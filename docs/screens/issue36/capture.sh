#!/usr/bin/env bash
# Captures issue 36's screens as text: a real Neovim 0.10 and a real Emacs
# (-nw) in a private tmux server, driven by keys, against agentls and the
# fake model (the issue-36 turns of editors/nvim/test/script.json). For one
# tree of the repository (its editors/ and an agentls built from it):
#
#   docs/screens/issue36/capture.sh TREE AGENTLS FAKELLM WHEN
#
# writes {nvim,emacs}-WHEN-{autonomy,plan,tasks,notify}.txt beside this
# script: a command's line with its output folded, the plan block, two
# tasks' labelled lines, and a task that needs you while its stream is off
# screen (the question, then its end). WHEN is "before" or "after".
set -euo pipefail
tree=$(cd "$1" && pwd) agentls=$2 fakellm=$3 when=$4
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../.." && pwd)
nvim=${AGENTLS_NVIM010:-/opt/agentls-test/nvim-0.10}/nvim-0.10
emacs=${AGENTLS_EMACS:-emacs}
sock=agentls-screens-$$
tmp=$(mktemp -d)
fpid=
cleanup() {
  tmux -L "$sock" kill-server 2>/dev/null || true
  [ -n "$fpid" ] && kill "$fpid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

"$fakellm" -script "$repo/editors/nvim/test/script.json" >"$tmp/fake.out" 2>/dev/null &
fpid=$!
for _ in $(seq 50); do grep -q '^http' "$tmp/fake.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -m1 '^http' "$tmp/fake.out")

# tidy: trailing blank lines dropped; a run of Neovim's "~" lines, or of
# three or more empty lines, is one "⋮".
tidy() {
  sed -e "s|$tmp/ws|~/app|g" -e "s|$agentls|agentls|g" -e :a -e '/^\n*$/{$d;N;ba' -e '}' | awk '
    function flush() { if (n >= 3 || tilde) print "⋮"; else for (i = 0; i < n; i++) print ""; n = 0; tilde = 0 }
    /^~ *$/ { tilde = 1; n++; next }
    /^ *$/ { n++; next }
    { flush(); print }
    END { flush() }'
}
# shot NAME: the pane as text.
shot() {
  tmux -L "$sock" capture-pane -p -t s | tidy >"$here/$1"
}
# wait_for TEXT [SECS]: until the pane shows TEXT.
wait_for() {
  for _ in $(seq $((${2:-10} * 10))); do
    tmux -L "$sock" capture-pane -p -t s | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  echo "capture.sh: no \"$1\" on screen after ${2:-10} s" >&2
  return 0
}
keys() { tmux -L "$sock" send-keys -t s "$@"; }

workspace() {
  rm -rf "$tmp/ws" "$tmp/home"
  mkdir -p "$tmp/ws" "$tmp/home"
  printf 'hello world\nsecond line\n' >"$tmp/ws/hello.txt"
  printf 'apple pie\n' >"$tmp/ws/i36a.txt"
  printf 'banana split\n' >"$tmp/ws/i36b.txt"
  echo '{}' >"$tmp/ws/.agentls.json"
}
envs="HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config XDG_DATA_HOME=$tmp/home/.local/share XDG_STATE_HOME=$tmp/home/.local/state XDG_CACHE_HOME=$tmp/home/.cache TERM=xterm-256color"

# Neovim: the plugin's own start-up, the stream in a split, the
# statusline showing statusline().
workspace
cat >"$tmp/init.lua" <<LUA
vim.opt.rtp:prepend('$tree/editors/nvim')
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. 'I'
vim.o.statusline = "%f %m%=%{v:lua.require'agentls'.statusline()} "
require('agentls').setup({
  cmd = { '$agentls', 'serve' },
  init_options = { llm = { baseURL = '$url', model = 'test-model' }, verify = { enabled = false } },
  stream = { open = 'split', height = 22 },
})
LUA
# The unpacked 0.10 runs through its loader, where the TUI cannot start its
# own --embed child: a headless Neovim serves and a --remote-ui TUI shows it.
tmux -L "$sock" new-session -d -s s -x 110 -y 34 "cd $tmp/ws && env $envs $nvim --headless --listen $tmp/nvim.sock -i NONE -n -u $tmp/init.lua hello.txt & sleep 1; env $envs $nvim --server $tmp/nvim.sock --remote-ui"
sleep 2
keys ':AgentRun I36 run the listing' Enter
wait_for 'Listed.'
sleep 0.5
shot "nvim-$when-autonomy.txt"
keys ':AgentRun I36 plan it' Enter
wait_for 'Planned and done.'
sleep 0.5
shot "nvim-$when-plan.txt"
keys ':AgentRun I36 task A' Enter
keys ':AgentRun I36 task B' Enter
wait_for 'Task A read i36a.txt and is done.' 15
wait_for 'Task B read i36b.txt and is done.' 15
sleep 0.5
shot "nvim-$when-tasks.txt"
# The stream off screen: another tab page; a task asks a question.
keys ':tabnew' Enter ':AgentRun I36 needs you ask' Enter
wait_for 'Allow this change' 10
sleep 0.5
tmux -L "$sock" capture-pane -p -t s >"$tmp/q.txt"
keys '1' Enter
wait_for 'Asked and done' 5
sleep 1
tmux -L "$sock" capture-pane -p -t s >"$tmp/d.txt"
keys ':messages' Enter
sleep 0.5
tmux -L "$sock" capture-pane -p -t s | grep -i 'agentls' >"$tmp/m.txt" || true
keys Enter
{
  echo "── the question, with the stream in another tab page ──"
  tidy <"$tmp/q.txt"
  echo "── after answering 1 ──"
  tidy <"$tmp/d.txt"
  echo "── :messages ──"
  tidy <"$tmp/m.txt"
} >"$here/nvim-$when-notify.txt"
keys ':qa!' Enter
sleep 0.5
tmux -L "$sock" kill-server 2>/dev/null || true

# Emacs: agentls.el's own connection, *agentls* in its side window, the
# mode line showing agentls-mode-line.
workspace
cat >"$tmp/init.el" <<EL
(add-to-list 'load-path "$tree/editors/emacs")
(setq inhibit-startup-screen t
      native-comp-async-report-warnings-errors 'silent
      warning-minimum-level :error)
(require 'agentls)
(setq agentls-program '("$agentls" "serve")
      agentls-initialization-options '(:llm (:baseURL "$url" :model "test-model") :verify (:enabled :json-false)))
(add-to-list 'global-mode-string '(:eval (agentls-mode-line)))
EL
tmux -L "$sock" new-session -d -s s -x 110 -y 34 "cd $tmp/ws && env $envs $emacs -nw -q -l $tmp/init.el hello.txt"
sleep 2
keys M-x 'agentls-connect' Enter
wait_for 'connected to' 10
# eval runs a form from the minibuffer (M-:).
eval_el() { keys M-: "$1" Enter; }
eval_el '(agentls-run "I36 run the listing")'
wait_for 'Listed.'
sleep 0.5
shot "emacs-$when-autonomy.txt"
eval_el '(agentls-run "I36 plan it")'
wait_for 'Planned and done.'
sleep 0.5
shot "emacs-$when-plan.txt"
eval_el '(progn (agentls-run "I36 task A") (agentls-run "I36 task B"))'
wait_for 'Task A read i36a.txt and is done.' 15
wait_for 'Task B read i36b.txt and is done.' 15
# *agentls* is a third of the frame: the upper window shows it too, from
# the two tasks' headers on.
eval_el '(progn (select-window (get-buffer-window "hello.txt")) (switch-to-buffer "*agentls*") (goto-char (point-min)) (search-forward "I36 task A") (recenter 0))'
sleep 0.5
shot "emacs-$when-tasks.txt"
# *agentls* off screen; a task asks a question.
eval_el '(progn (switch-to-buffer "hello.txt") (setq agentls-display-stream nil) (mapc (function delete-window) (get-buffer-window-list "*agentls*")))'
sleep 0.3
eval_el '(agentls-run "I36 needs you ask")'
wait_for 'Allow this change' 10
sleep 0.5
tmux -L "$sock" capture-pane -p -t s >"$tmp/q.txt"
keys 'Allow this change' Enter
wait_for 'Asked and done' 5
sleep 1
tmux -L "$sock" capture-pane -p -t s >"$tmp/d.txt"
eval_el '(with-current-buffer "*Messages*" (write-region (point-min) (point-max) "'"$tmp/msgs"'"))'
sleep 0.5
grep -i 'agentls' "$tmp/msgs" | grep -v 'Loading\|seq-' >"$tmp/m.txt" || true
{
  echo "── the question, with *agentls* off screen ──"
  tidy <"$tmp/q.txt"
  echo "── after answering \"Allow this change\" ──"
  tidy <"$tmp/d.txt"
  echo "── *Messages* ──"
  tidy <"$tmp/m.txt"
} >"$here/emacs-$when-notify.txt"
keys C-x C-c
sleep 0.3
keys 'yes' Enter
