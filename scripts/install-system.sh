#!/usr/bin/env bash
# Install the Debian packages netrepro needs: the benchmark tools whose outputs
# it parses and runs (netperf lives in Debian's non-free component, so that
# component is enabled first) and iproute2 for the collector's testbeds.
# Idempotent: does nothing when every package is already installed.
set -euo pipefail

# chromium + chromium-driver: the HTML report is checked in a real headless browser,
# and `make pdf` prints it with chromium; poppler-utils (pdfinfo, pdftotext) checks the PDFs.
# openssh-client drives lab hosts (netrepro collect, kind: hosts); openssh-server and
# netcat-openbsd are for the live SSH tests, which run sshd inside test namespaces.
# kmod: insmod, which User-mode Linux guests use to load their own IPv6 module (kind: uml).
packages=(netperf iperf iperf3 d-itg iproute2 procps ethtool chromium chromium-driver poppler-utils
          openssh-client openssh-server netcat-openbsd kmod)
# Debian's own python3 needs python3-venv before `python3 -m venv` works.
python3 -c "import ensurepip, venv" 2>/dev/null || packages+=(python3-venv python3-pip)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
here=$(cd "$(dirname "$0")" && pwd)
uml() {
  # The guest kernels of `kind: uml` testbeds: Debian's user-mode-linux of pinned suites, in a cache.
  if [ "$(id -u)" -eq 0 ] || [ -w "${NETREPRO_UML_DIR:-/var/cache/netrepro/uml}" ]; then
    bash "$here/install-uml.sh"
  else
    echo "install-system: skipping the User-mode Linux kernels (not root): run scripts/install-uml.sh as root" >&2
  fi
}
[ ${#missing[@]} -eq 0 ] && { uml; exit 0; }

if [ "$(id -u)" -ne 0 ]; then
  echo "install-system: need root to install: ${missing[*]} (run as root or install them yourself)" >&2
  exit 1
fi

nonfree=/etc/apt/sources.list.d/netrepro-non-free.sources
if ! grep -rqs "non-free\b" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  cat > "$nonfree" <<SRC
# Added by netrepro: netperf is in Debian's non-free component.
Types: deb
URIs: http://deb.debian.org/debian
Suites: ${codename} ${codename}-updates
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

# A freshly installed openssh-server would start a system sshd on port 22 of every
# address; netrepro only needs the binary, so services are held off while installing
# (policy-rc.d, removed afterwards unless it was there before).
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\n# netrepro install-system.sh: no service start-up while installing\nexit 101\n' > "$policy"
  chmod 755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi

echo "install-system: installing Debian packages: ${missing[*]} (first run: a few minutes; once)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
uml
