# Kernel builds through Debian's ccache, with its cache outside the checkout, so that a rerun
# on the same machine (another clone included) reuses the objects of the last one and a fresh
# machine builds everything. Sourced by .ci/prove-patches and examples/qemu-lab/run; defines
# functions and exports CCACHE_* and PATH, nothing else.
#
#   ccache_init      put ccache's compiler links first in PATH (gcc, cc) when ccache is
#                    installed, and zero its counters; say so either way
#   ccache_report W  print the hits and misses since ccache_init, naming what was built (W)
#
# The key of an object is ccache's own: the compiler's bytes, its arguments and the
# preprocessed source. Paths below the checkout are made relative (CCACHE_BASEDIR) and the
# working folder is left out of the key, so a clone in another folder hits the same objects.
# Environment: KERNLAB_CCACHE_DIR (default ~/.cache/kernlab-ccache), KERNLAB_CCACHE=off to
# build without it.

ccache_init() {
  CCACHE_ACTIVE=no
  if [ "${KERNLAB_CCACHE:-on}" = off ]; then
    echo "ccache: off (KERNLAB_CCACHE=off)"
    return 0
  fi
  if ! command -v ccache >/dev/null || [ ! -x /usr/lib/ccache/gcc ]; then
    echo "ccache: not installed (.ci/setup installs Debian's ccache): every object is compiled"
    return 0
  fi
  export CCACHE_DIR=${KERNLAB_CCACHE_DIR:-$HOME/.cache/kernlab-ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
  export CCACHE_NOHASHDIR=1 CCACHE_COMPILERCHECK=content CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-6G}
  export PATH=/usr/lib/ccache:$PATH
  mkdir -p "$CCACHE_DIR"
  ccache --zero-stats >/dev/null
  CCACHE_ACTIVE=yes
}

ccache_report() {
  [ "${CCACHE_ACTIVE:-no}" = yes ] || return 0
  ccache --print-stats | awk -F '\t' -v what="$1" -v dir="$CCACHE_DIR" '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { hits += $2 }
    $1 == "cache_miss" { misses = $2 }
    END {
      total = hits + misses
      rate = total ? sprintf("%.0f %%", 100 * hits / total) : "no compilation"
      printf "ccache (%s): %d hits, %d misses of %d compilations (%s) in %s\n", what, hits, misses, total, rate, dir
    }'
}
