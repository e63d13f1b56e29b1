#!/usr/bin/env bash
# Checks that the checkout is ready to be released as the version in
# Cargo.toml (the one place the version is written), and names everything
# that is not:
#
#   - every plugin/extension manifest carries the crate's version
#     (plugin.json, marketplace.json, gemini-extension.json, package.json,
#     wherever they are outside target/, tests/, node_modules/ and .git/);
#   - CHANGELOG.md has a `## [X.Y.Z]` section for it (Keep a Changelog);
#   - the git tree is clean (nothing modified, staged or untracked);
#   - `cargo publish --dry-run --locked` passes (the .crate builds alone).
#
#   scripts/release.sh              all checks; exit 0 when ready
#   scripts/release.sh --no-cargo   all but the (slow) cargo publish dry run
#
# Exit 1 when something is missing (each listed on stderr), 2 on bad usage.
# Needs python3 (to read Cargo.toml and the JSON manifests) and git.
set -euo pipefail

cargo_check=1
for arg in "$@"; do
    case "$arg" in
        --no-cargo) cargo_check=0 ;;
        -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "error: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
    esac
done

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
missing=()

version=$(python3 -c '
import sys, tomllib
with open("Cargo.toml", "rb") as f:
    print(tomllib.load(f)["package"]["version"])
') || { echo "error: cannot read [package] version from $root/Cargo.toml" >&2; exit 1; }
echo "release check for agent-handover $version"

# 1. The manifests' versions. Each line from python is one mismatch.
manifests=$(find . \( -path ./target -o -path ./tests -o -path ./.git -o -name node_modules \) -prune -o \
    -type f \( -name plugin.json -o -name marketplace.json -o -name gemini-extension.json -o -name package.json \) \
    -print | sed 's|^\./||' | sort)
if [ -n "$manifests" ]; then
    mismatches=$(printf '%s\n' "$manifests" | python3 -c '
import json, sys
want = sys.argv[1]
for path in sys.stdin.read().split():
    try:
        with open(path) as f:
            data = json.load(f)
    except Exception as e:
        print(f"{path}: not readable JSON ({e})")
        continue
    found = []  # (where, version)
    if "version" in data:
        found.append(("version", data["version"]))
    if path.endswith("marketplace.json"):
        meta = data.get("metadata") or {}
        if "version" in meta:
            found.append(("metadata.version", meta["version"]))
        for i, plugin in enumerate(data.get("plugins") or []):
            if isinstance(plugin, dict) and "version" in plugin:
                name = plugin.get("name", i)
                found.append((f"plugins[{name}].version", plugin["version"]))
    if path.endswith("package.json"):
        # Platform packages pinned by the main one move with it.
        for key in ("optionalDependencies", "dependencies"):
            for name, spec in (data.get(key) or {}).items():
                if "agent-handover" in name:
                    found.append((f"{key}[{name}]", str(spec).lstrip("^~=")))
    if not found:
        print(f"{path}: has no version field (want {want})")
    for where, got in found:
        if got != want:
            print(f"{path}: {where} is {got!r}, want {want!r} (the version in Cargo.toml)")
' "$version")
    if [ -n "$mismatches" ]; then
        while IFS= read -r line; do missing+=("manifest version: $line"); done <<<"$mismatches"
    fi
    echo "manifests checked: $(printf '%s\n' "$manifests" | wc -l)"
else
    echo "manifests checked: none found"
fi

# 2. The CHANGELOG section.
escaped=${version//./\\.}
if [ ! -f CHANGELOG.md ]; then
    missing+=("CHANGELOG.md: the file is missing")
elif ! grep -Eq "^## \[$escaped\]" CHANGELOG.md; then
    missing+=("CHANGELOG.md: no '## [$version]' section (rename '## [Unreleased]' to '## [$version] - $(date +%Y-%m-%d)' and open a new Unreleased)")
fi

# 3. A clean tree.
dirty=1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    missing+=("git: $root is not a git checkout")
elif status=$(git status --porcelain --untracked-files=normal) && [ -n "$status" ]; then
    mapfile -t changed <<<"$status"
    changed=("${changed[@]#???}") # `XY path` -> path
    listed="${changed[*]:0:5}"
    [ ${#changed[@]} -gt 5 ] && listed+=" ... (${#changed[@]} in all)"
    missing+=("git: the tree is not clean (commit or remove: $listed)")
else
    dirty=0
fi

# 4. The crate, packaged and built alone (still run on a dirty tree, so one
# run names every problem).
if [ "$cargo_check" = 1 ]; then
    allow=()
    [ "$dirty" = 1 ] && allow=(--allow-dirty)
    echo "cargo publish --dry-run --locked ${allow[*]} (builds the .crate alone; a few minutes)"
    if ! cargo publish --dry-run --locked "${allow[@]}"; then
        missing+=("cargo publish --dry-run --locked failed (its output is above)")
    fi
    # The dry run builds the unpacked .crate in the shared target dir under
    # the same hashes as the checkout, and cargo then takes the unpacked
    # sources for the checkout's: later edits in src/ would not rebuild the
    # binary. Without them, the next build sees them gone and rebuilds.
    target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
    name=$(python3 -c '
import tomllib
with open("Cargo.toml", "rb") as f:
    print(tomllib.load(f)["package"]["name"])
')
    rm -rf "${target_dir:?}/package/$name-$version" "$target_dir/package/tmp-crate"
else
    echo "cargo publish --dry-run: skipped (--no-cargo)"
fi

if [ ${#missing[@]} -gt 0 ]; then
    echo "not ready to release $version; missing:" >&2
    for m in "${missing[@]}"; do echo "  - $m" >&2; done
    exit 1
fi
echo "ready to release $version: tag it v$version"
