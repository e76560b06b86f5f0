#!/usr/bin/env bash
# Installs the npm package node@$1 (which ships that major version's Node binary) into .cache/node$1,
# for the tests that run the built binaries on it. Does nothing when it is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
major=${1:?usage: test/install-node.sh MAJOR}
target=.cache/node$major
if [ -x "$target/node_modules/node/bin/node" ] && "$target/node_modules/node/bin/node" --version | grep -q "^v$major\."; then
  exit 0
fi
mkdir -p "$target"
echo '{"private": true}' > "$target/package.json"
(cd "$target" && npm install --no-audit --no-fund --loglevel=error "node@$major")
"$target/node_modules/node/bin/node" --version
