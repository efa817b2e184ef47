#!/bin/sh
# make deps: find what lbmprobe needs, install the missing Debian packages.
# Required: a C compiler, OpenCL headers and ICD loader, an OpenCL CPU
# driver (PoCL), cmocka.  Optional: likwid (CPU bandwidth reference),
# gnuplot (plots), clinfo, Open MPI (runs across devices), jq (the tests
# of --json), clang with libFuzzer (fuzzing).  CUDA is never installed: it
# is used where the toolkit (headers, NVRTC) and the driver are present.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
need="" want=""
have_file() { for f in "$@"; do [ -e "$f" ] && return 0; done; return 1; }
have_lib() { ldconfig -p 2>/dev/null | grep -q "$1" || have_file /usr/lib/x86_64-linux-gnu/$1 /usr/lib64/$1 /usr/lib/$1; }

command -v gcc >/dev/null 2>&1 || need="$need gcc"
command -v make >/dev/null 2>&1 || need="$need make"
have_file /usr/include/CL/cl.h "$CUDA_HOME/include/CL/cl.h" .deps/include/CL/cl.h || need="$need opencl-headers"
have_lib libOpenCL.so.1 || need="$need ocl-icd-libopencl1"
have_file /usr/include/cmocka.h .deps/include/cmocka.h || need="$need libcmocka-dev"
have_file /etc/OpenCL/vendors/pocl.icd || need="$need pocl-opencl-icd"
command -v likwid-bench >/dev/null 2>&1 || want="$want likwid"
command -v gnuplot >/dev/null 2>&1 || want="$want gnuplot-nox"
command -v clinfo >/dev/null 2>&1 || want="$want clinfo"
# MPI: several ranks, one per device (lbmkernels and stream --interconnect
# under mpirun); without it the tools run one rank and make test skips the
# MPI tests
command -v mpicc >/dev/null 2>&1 && command -v mpirun >/dev/null 2>&1 || want="$want openmpi-bin libopenmpi-dev"
command -v jq >/dev/null 2>&1 || want="$want jq"
# clang with libFuzzer and its sanitizers: make test's short fuzz runs and
# make fuzz (without them the fuzz harnesses are skipped, not failed)
command -v clang >/dev/null 2>&1 || want="$want clang"
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a >/dev/null 2>&1 || want="$want libclang-rt-dev"

# Optional packages that could not be installed before are not tried again
# on every make test (each try is an apt-get update): they are listed in
# .deps/unavailable; RETRY=1 (make deps RETRY=1) tries them again.
skipfile=.deps/unavailable
if [ -n "$want" ] && [ -f "$skipfile" ] && [ "${RETRY:-0}" != 1 ]; then
    kept=""
    for p in $want; do grep -qx "$p" "$skipfile" || kept="$kept $p"; done
    [ "$kept" = "$want" ] || echo "deps: not trying again$(for p in $want; do grep -qx "$p" "$skipfile" && printf ' %s' "$p"; done) (could not be installed before; make deps RETRY=1)"
    want=$kept
fi
[ -z "$need$want" ] && { echo "deps: everything lbmprobe needs is installed"; exit 0; }
missing="$need$want"
if [ "$(id -u)" -ne 0 ]; then
    if [ -n "$need" ]; then
        echo "deps: missing$need; installing needs root: run 'sudo make deps' or 'apt-get install$need'" >&2
        exit 1
    fi
    echo "deps: optional packages missing:$want (not root, not installing)" >&2
    exit 0
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
if timeout 120 apt-get update -qq >/dev/null 2>&1 && timeout 600 apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1; then
    echo "deps: installed$missing"
    exit 0
fi
# No package source (e.g. a GPU machine without network): install one by one.
still=""
for p in $missing; do timeout 120 apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 || still="$still $p"; done
fail=""
for p in $still; do case " $need " in *" $p "*) fail="$fail $p" ;; esac; done
opt=""
for p in $still; do case " $want " in *" $p "*) opt="$opt $p" ;; esac; done
[ -n "$opt" ] && mkdir -p .deps && for p in $opt; do grep -qsx "$p" "$skipfile" || echo "$p" >>"$skipfile"; done
[ -n "$opt" ] && echo "deps: could not install$opt; going on without them (no likwid: no CPU bandwidth reference; no gnuplot: render plots elsewhere with make plots; no Open MPI: one rank, the MPI tests skipped; no clang or libclang-rt-dev: no fuzzing)" >&2
if [ -n "$fail" ]; then
    # PoCL and cmocka are needed for the tests, not for measuring a GPU.
    case "$fail" in *opencl-headers*|*ocl-icd*|*gcc*|*make*)
        echo "deps: could not install$fail, which lbmprobe needs to build" >&2; exit 1 ;;
    esac
    echo "deps: could not install$fail (needed by make test, not by make bench on a GPU)" >&2
fi
exit 0
