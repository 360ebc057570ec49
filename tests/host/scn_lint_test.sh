#!/bin/sh
# scn_lint_test.sh LINT - the host lint (scn_lint.c) on a good and a
# broken script: exit status 0 and no output, then status 1 and exactly
# FILE:LINE:COL: message, the line and a caret under the column; and
# every shipped scenario passes.
set -e
lint=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "scn_lint_test: $*"; exit 1; }

printf 'scenario ok\nsemaphore s=1\ntask a fair\n    down s\n    up s\nend\nend scenario\n' >"$dir/ok.scn"
out=$("$lint" "$dir/ok.scn") || fail "good script refused: $out"
[ -z "$out" ] || fail "good script printed: $out"

printf 'scenario bad\nmutex m\ntask a fair\n\tlock m\n\tcwait c m\n\tunlock m\nend\nend scenario\n' >"$dir/bad.scn"
status=0
"$lint" "$dir/bad.scn" >"$dir/out" || status=$?
[ "$status" = 1 ] || fail "broken script: status $status, expected 1"
printf '%s\n' "$dir/bad.scn:5:8: unknown condvar 'c'" '    	cwait c m' \
	'    	      ^' >"$dir/want"
cmp -s "$dir/out" "$dir/want" || { diff "$dir/want" "$dir/out"; fail "broken script: output differs"; }

status=0
"$lint" "$dir/missing.scn" >/dev/null 2>&1 || status=$?
[ "$status" = 2 ] || fail "missing file: status $status, expected 2"

for f in ../scenarios/*.scn ../../docs/labs/*.scn ../scenarios/module/*.scn; do
	"$lint" "$f" || fail "$f refused"
done
echo "scn_lint_test: ok"
