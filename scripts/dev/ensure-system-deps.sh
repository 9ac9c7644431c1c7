#!/usr/bin/env bash
# System programs the tests start for real: redis-server (shared budgets), caddy (HTTPS proxy),
# chromium (browser tests), hunspell-de-de (German word list for the compound splitter). Installs the missing ones from Debian's packages when run as root.
set -euo pipefail

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v caddy >/dev/null 2>&1 || missing+=(caddy)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
# A throw-away self-signed certificate for the benchmark client's HTTPS test (bench-http-client.test.ts).
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# German hunspell dictionary: fills the compound splitter's lexicon at start-up (services/core/analysis/lexicon.ts).
[ -f /usr/share/hunspell/de_DE.dic ] || missing+=(hunspell-de-de)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "ensure-system-deps: missing ${missing[*]}; install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "ensure-system-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The Debian packages start their own services; the tests start their own instances on free ports.
for service in redis-server caddy; do
  if command -v systemctl >/dev/null 2>&1; then systemctl stop "$service" >/dev/null 2>&1 || true; fi
done
