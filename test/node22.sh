#!/usr/bin/env bash
# Installs the npm package node@22 (which ships the Node 22 binary) into .cache/node22 for the
# smoke test of the built binaries on Node 22. Does nothing when it is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
target=.cache/node22
if [ -x "$target/node_modules/node/bin/node" ] && "$target/node_modules/node/bin/node" --version | grep -q '^v22\.'; then
  exit 0
fi
mkdir -p "$target"
echo '{"private": true}' > "$target/package.json"
(cd "$target" && npm install --no-audit --no-fund --loglevel=error node@22)
"$target/node_modules/node/bin/node" --version
