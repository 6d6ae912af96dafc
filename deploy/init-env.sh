#!/bin/sh
# Writes the secrets of the compose deployment (docker-compose.yml) into .env, once: random values
# for the admin token, the secrets key and the stores' passwords. An existing .env is never
# overwritten: those values must outlive restarts (ADMIN_TOKEN and INTEGRATION_SECRETS_KEY sign URLs
# and seal secrets; the stores keep the passwords they were first started with).
#
#   deploy/init-env.sh [path]     # default: .env beside docker-compose.yml
set -eu

target="${1:-$(dirname "$0")/../.env}"
if [ -e "$target" ]; then
  echo "init-env: $target exists, left as it is (delete it only together with the stores' volumes)" >&2
  exit 0
fi

# n random bytes as hex, from the kernel's generator (no openssl needed).
hex() { od -An -tx1 -N"$1" /dev/urandom | tr -d ' \n'; }

umask 077
tmp="$target.tmp.$$"
trap 'rm -f "$tmp"' EXIT
cat > "$tmp" <<ENV
# Written by deploy/init-env.sh. Keep it, and keep it private: back it up with the stores' volumes.
# ADMIN_TOKEN authorizes /v1/admin/* and derives the keys that sign download, PDF and visitor URLs.
ADMIN_TOKEN=dpa_$(hex 24)
# Seals integrations' secrets (64 hex characters); changing it makes the sealed ones unreadable.
INTEGRATION_SECRETS_KEY=$(hex 32)
# Set in KurrentDB and MongoDB on their first start; changing them here later changes nothing there.
KURRENTDB_ADMIN_PASSWORD=$(hex 24)
KURRENTDB_OPS_PASSWORD=$(hex 24)
MONGODB_ROOT_PASSWORD=$(hex 24)
# The service's own MongoDB user (read and write on its database); mongodb-init sets it on every start.
MONGODB_APP_PASSWORD=$(hex 24)
ENV
mv "$tmp" "$target"
trap - EXIT
echo "init-env: wrote $target (mode 0600)"
