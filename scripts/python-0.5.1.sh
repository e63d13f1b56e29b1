#!/usr/bin/env bash
# Provide the reference implementation, Python agent-handover 0.5.1, in a
# private venv at <repo>/target/py-0.5.1, for the interop tests
# (tests/it/interop_python.rs) and the CLI benchmark (benches/cli.rs).
#
# Prints the absolute path of the venv's `bin/agent-handover` on stdout and
# exits 0. When the venv is already complete this is instant (no pip call).
# If it cannot be built (no Python >= 3.10, no network, ...) it prints one
# line saying why on stderr and exits 1.
#
# Environment: PYTHON picks the interpreter (default: python3).
set -u

die() {
    printf '%s\n' "$*" >&2
    exit 1
}

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P) || die "cannot resolve the script's directory"
root=$(cd -- "$here/.." && pwd -P) || die "cannot resolve the repository root"
target="$root/target"
venv="$target/py-0.5.1"
cli="$venv/bin/agent-handover"
marker="$venv/.agent-handover-0.5.1-installed"

# Fast path: a complete venv (the marker is written last).
if [[ -f $marker && -x $cli ]]; then
    printf '%s\n' "$cli"
    exit 0
fi

mkdir -p -- "$target" || die "cannot create $target"

# Serialise concurrent callers (parallel tests, a bench running beside them).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$target/py-0.5.1.lock" || die "cannot open $target/py-0.5.1.lock"
    flock -w 600 9 || die "timed out waiting for another install of agent-handover 0.5.1 (lock $target/py-0.5.1.lock)"
    # Someone else may have finished it while we waited.
    if [[ -f $marker && -x $cli ]]; then
        printf '%s\n' "$cli"
        exit 0
    fi
fi

python=${PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || die "python agent-handover 0.5.1 needs Python >= 3.10, but '$python' is not on PATH"
"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' >/dev/null 2>&1 \
    || die "python agent-handover 0.5.1 needs Python >= 3.10; '$python' is $("$python" --version 2>&1 | head -n1)"

log="$target/py-0.5.1.log"
last_line() {
    # The last non-empty line of the log, for a one-line reason.
    grep -v '^[[:space:]]*$' "$log" 2>/dev/null | tail -n 1 | tr -s '[:space:]' ' ' | sed 's/^ //; s/ $//'
}

# An incomplete venv (interrupted install) is rebuilt from scratch.
rm -rf -- "$venv"
if ! "$python" -m venv "$venv" >"$log" 2>&1; then
    reason=$(last_line)
    rm -rf -- "$venv"
    die "'$python -m venv' failed: ${reason:-no output} (log: $log)"
fi
if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    'agent-handover==0.5.1' >>"$log" 2>&1; then
    reason=$(last_line)
    rm -rf -- "$venv"
    die "pip install agent-handover==0.5.1 failed: ${reason:-no output} (log: $log)"
fi
[[ -x $cli ]] || die "pip installed agent-handover 0.5.1 but $cli is missing (log: $log)"
version=$("$venv/bin/python" -c 'import agent_handover; print(agent_handover.__version__)' 2>>"$log") \
    || die "the installed agent_handover package does not import (log: $log)"
[[ $version == 0.5.1 ]] || die "expected agent_handover 0.5.1 in $venv, found '$version'"
: >"$marker" || die "cannot write $marker"
printf '%s\n' "$cli"
