#!/usr/bin/env bash
# The device tool sends the working tree (tracked and untracked-not-ignored files) plus what a
# call carries, 64 MiB in all; the committed results/ folders are most of the tree, so a call
# that carries a compile cache no longer fits. This script removes results/ from the working
# tree except the paths a call needs, and puts everything back afterwards from git. The index is
# not touched: while the tree is slim the removed files show as unstaged deletions, so restore
# before `git commit -a` or `git add -A` (committing named paths is safe).
#
#   scripts/slim_tree.sh hide PATH...   # keep only these paths of results/ on disk
#   scripts/slim_tree.sh restore        # results/ as committed (new untracked files stay)
#   scripts/slim_tree.sh size           # MiB of tracked files on disk (what a call sends, less carry)
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  hide)
    shift
    [ $# -gt 0 ] || { echo "$0 hide: name the paths the call needs" >&2; exit 2; }
    keep=$(mktemp)
    trap 'rm -f "$keep"' EXIT
    tar cf "$keep" "$@"
    git ls-files -z results | xargs -0 rm -f
    tar xf "$keep"
    ;;
  restore)
    git ls-files -z --deleted results | xargs -0 -r git checkout --
    ;;
  size) ;;
  *)
    echo "usage: $0 hide PATH... | restore | size" >&2
    exit 2
    ;;
esac
git ls-files -z | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {printf "tracked files on disk: %.1f MiB\n", s / 1048576}'
