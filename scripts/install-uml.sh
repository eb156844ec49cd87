#!/usr/bin/env bash
# Fetch the User-mode Linux kernels that `kind: uml` testbeds boot (docs/collecting.md,
# "Kernels as the OS factor"): Debian's user-mode-linux package of each suite below, at
# a pinned version, downloaded with apt-get (verified against the suite's signed index)
# and unpacked with dpkg -x into a cache -- never installed, never replacing anything.
#
#   scripts/install-uml.sh            # every pinned kernel
#   scripts/install-uml.sh bookworm   # one
#
# Cache: $NETREPRO_UML_DIR (default /var/cache/netrepro/uml), one folder per suite:
#   <cache>/<suite>/usr/bin/linux.uml, <cache>/<suite>/usr/lib/uml/modules/<release>/...
#   <cache>/<suite>/VERSION (the package version; the collector records it)
# Each suite's index goes to its own lists folder in the cache; the host's apt sources
# and state are not touched. Idempotent: a suite already at its pinned version is skipped.
#
# Not here: trixie's 6.12 build needs glibc 2.38 and this host (bookworm) has 2.36;
# the host's libc is not upgraded for it.
set -euo pipefail

declare -A PINNED=(
  [bookworm]="6.1um4+b13"
  [bullseye]="5.10um3+b1"
)
cache=${NETREPRO_UML_DIR:-/var/cache/netrepro/uml}
suites=("$@")
[ ${#suites[@]} -eq 0 ] && suites=(bookworm bullseye)

for suite in "${suites[@]}"; do
  version=${PINNED[$suite]:-}
  if [ -z "$version" ]; then
    echo "install-uml: no pinned user-mode-linux for suite '$suite' (pinned: ${!PINNED[*]})" >&2
    exit 1
  fi
  dest="$cache/$suite"
  if [ -x "$dest/usr/bin/linux.uml" ] && [ "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" ]; then
    continue
  fi
  if [ "$(id -u)" -ne 0 ] && [ ! -w "$(dirname "$cache")" ]; then
    echo "install-uml: cannot write $cache (run as root or set NETREPRO_UML_DIR)" >&2
    exit 1
  fi
  work="$cache/.apt-$suite"
  mkdir -p "$work/lists/partial" "$work/archives"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" > "$work/sources.list"
  apt=(-o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-" -o "Dir::State::Lists=$work/lists"
       -o "Dir::Cache::archives=$work/archives" -o "APT::Sandbox::User=root")
  apt-get -qq "${apt[@]}" update
  (cd "$work/archives" && apt-get -qq "${apt[@]}" download "user-mode-linux=$version")
  deb="$work/archives/user-mode-linux_${version//:/%3a}_amd64.deb"
  [ -f "$deb" ] || { echo "install-uml: $deb was not downloaded" >&2; exit 1; }
  rm -rf "$dest.new"
  mkdir -p "$dest.new"
  dpkg -x "$deb" "$dest.new"
  echo "$version" > "$dest.new/VERSION"
  rm -rf "$dest"
  mv "$dest.new" "$dest"
  rm -rf "$work"
  echo "install-uml: $suite user-mode-linux $version in $dest"
done
