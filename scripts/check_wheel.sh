#!/usr/bin/env bash
# Builds fsmc's wheel, installs it into a fresh virtual environment and runs check → enumerate → build on a
# spec copied to a folder outside the repository: the grammar, the templates and the npm lockfile must come
# from the wheel. The venv sees the system's site-packages (so lark, datasets, torch … are not fetched again),
# but fsmc itself must be imported from the venv. node_modules is installed at the first build, not shipped.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m pip wheel "$repo" --no-deps --no-build-isolation -q -w "$work/wheel" >/dev/null
rm -rf "$repo/build"   # setuptools' staging folder, left in the tree by an in-tree build
wheel="$(ls "$work"/wheel/fsmc-*.whl)"
if python3 -c 'import sys, zipfile; sys.exit(not any("node_modules" in n for n in zipfile.ZipFile(sys.argv[1]).namelist()))' "$wheel"; then
  echo "check_wheel: node_modules went into $wheel" >&2; exit 1
fi

python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install -q --no-deps --disable-pip-version-check "$wheel"
mkdir "$work/project" && cp "$repo/tests/fixtures/mini.fsm" "$work/project/"
cd "$work/project"
"$work/venv/bin/python" - "$work/venv" <<'EOF'
import os
import sys
from pathlib import Path

import fsmc
from fsmc.codegen import npm

venv = Path(sys.argv[1]).resolve()
where = Path(fsmc.__file__).resolve()
assert venv in where.parents, f"fsmc was imported from {where}, not from the wheel in {venv}"
assert venv in npm.TEMPLATES.parents and (npm.TEMPLATES / "package-lock.json").is_file(), npm.TEMPLATES
print(f"check_wheel: fsmc {fsmc.__version__} from {where.parent}")
# a read-only install (say, a system package) gets its node_modules in the user's cache instead
real_access = os.access
os.access = lambda path, mode, **kw: False if Path(path) == npm.TEMPLATES else real_access(path, mode, **kw)
cached = npm.install_root()
os.access = real_access
assert cached.parent == npm.cache_home() and cached.name.startswith("npm-"), cached
print(f"check_wheel: read-only, node_modules would go to {cached / 'node_modules'}")
EOF
fsmc="$work/venv/bin/fsmc"
"$fsmc" check mini.fsm
"$fsmc" enumerate mini.fsm -o out/mini
"$fsmc" build mini.fsm --out sites
test -f sites/*/dist/index.html
echo "check_wheel: check → enumerate → build from the installed wheel in $work/project: ok"
