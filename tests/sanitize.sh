#!/usr/bin/env bash
# The compiled kernels under AddressSanitizer and UndefinedBehaviorSanitizer (gcc's).
#
#   tests/sanitize.sh                                   # the kernel tests (about 5 minutes, 2 cores)
#   tests/sanitize.sh tests/game/test_kernel.py -x      # pytest arguments of your own
#
# Builds the extension modules (one per tt_env/**/_c*.c, as setup.py does) with
# -fsanitize=address,undefined into a scratch copy of the package, runs the tests against that
# copy, and ends with "sanitize: clean" (exit 0) or "sanitize: FAILED" with the sanitizers'
# reports (exit 1). Python itself is not instrumented: the ASan runtime is preloaded
# (LD_PRELOAD) and its leak check is off (the interpreter keeps memory to the end on purpose).
# pytest captures only Python's output (--capture=sys), so that a report, written by C to the
# process's stderr, reaches the terminal and the log even when ASan ends the process.
# Needs gcc and the test dependencies (pip install -e ".[dev]"). The scratch folder goes at the
# end; TT_SANITIZE_KEEP=1 keeps it. PYTHON picks the interpreter (default python3).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
python=${PYTHON:-python3}
flags=(-shared -fPIC -std=c11 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined)
kernel_tests=(
    tests/game/test_native.py
    tests/game/test_kernel.py
    tests/game/test_kernel_inputs.py
    tests/learned/test_features_inputs.py
    tests/learned/test_features_batch.py
    tests/valuation
    tests/agents/test_search.py
)
if (($#)); then args=("$@"); else args=("${kernel_tests[@]}"); fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/tt_env_sanitize.XXXXXX")
if [[ ${TT_SANITIZE_KEEP:-0} == 1 ]]; then
    echo "sanitize: the scratch copy stays in $scratch"
else
    trap 'rm -rf "$scratch"' EXIT
fi

# The package without this checkout's own builds of the kernels, then the sanitized ones.
cp -r tt_env "$scratch/"
find "$scratch/tt_env" \( -name '*.so' -o -name '*.pyd' -o -name __pycache__ \) -prune -exec rm -rf {} +
suffix=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
include=$("$python" -c 'import sysconfig; print(sysconfig.get_path("include"))')
mapfile -t sources < <(find tt_env -name '_c*.c' | LC_ALL=C sort)
pids=()
for source in "${sources[@]}"; do  # side by side: a kernel takes about 10 s of one core
    gcc "${flags[@]}" -Itt_env -I"$include" "$source" -o "$scratch/${source%.c}$suffix" &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "sanitize: built ${#sources[@]} kernels with ${flags[*]:2}"

# Run from the scratch folder, so that it comes first on sys.path (before this checkout or an
# installed tt_env); the tests are this checkout's.
LD_PRELOAD=$(gcc -print-file-name=libasan.so)
[[ -e $LD_PRELOAD ]] || { echo "sanitize: gcc has no libasan.so (its ASan runtime)" >&2; exit 2; }
export LD_PRELOAD
export ASAN_OPTIONS=detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1  # report every undefined behaviour met, and go on
export PYTHONPATH=$scratch${PYTHONPATH:+:$PYTHONPATH}
cd "$scratch"
"$python" - "$scratch" "${sources[@]}" <<'EOF'
import importlib
import sys

scratch, sources = sys.argv[1], sys.argv[2:]
for source in sources:
    module = importlib.import_module(source.removesuffix(".c").replace("/", "."))
    assert module.__file__.startswith(scratch), f"{module.__name__} is not the sanitized build"
EOF
for i in "${!args[@]}"; do  # paths of this checkout's tests
    if [[ ${args[i]} != -* && -e $repo/${args[i]%%::*} ]]; then args[i]=$repo/${args[i]}; fi
done
set +e
"$python" -m pytest -p no:cacheprovider --capture=sys "${args[@]}" 2>&1 | tee "$scratch/log"
status=${PIPESTATUS[0]}
set -e

reports=$(grep -cE '^==[0-9]+==ERROR: |runtime error: ' "$scratch/log" || true)
if ((reports)); then
    echo "sanitize: FAILED: $reports sanitizer report(s) above"
    grep -E '^==[0-9]+==ERROR: |runtime error: ' "$scratch/log"
    exit 1
fi
if ((status)); then
    echo "sanitize: FAILED: the tests failed (pytest's exit status $status), no sanitizer report"
    exit 1
fi
echo "sanitize: clean"
