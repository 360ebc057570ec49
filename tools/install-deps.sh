#!/bin/sh
# install-deps.sh PKG... - install the Debian packages that are missing.
# Called by `make deps` (and so by run/test/bench); quiet when all are there.
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq || exit 1
$SUDO apt-get install -y -qq --no-install-recommends $missing || {
	echo "deps: apt-get could not install:$missing" >&2
	exit 1
}
