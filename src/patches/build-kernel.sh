#!/bin/sh
# Build a kernel with the notebook's patches from an unpacked kernel source tree (a
# distribution's source package or a kernel.org tarball; no git needed). The checklist of
# the notebook runs it on a tester's machine; the QEMU lab runs the same script in CI.
#
# Usage: sh build-kernel.sh [OPTIONS] TREE [PATCH...]
#   --config FILE       start from this configuration (on Debian and Ubuntu the running
#                       kernel's: /boot/config-$(uname -r)); the signing and revocation key
#                       options are cleared so that the build needs no distribution keys
#   --fragment FILE     start from `make tinyconfig` merged with FILE (the QEMU lab)
#   --localmodconfig    then keep only the modules loaded right now, and msr, which
#                       kernlog capture reads the MTRRs through (a much shorter build;
#                       LSMOD=FILE reads the module list from FILE instead)
#   --no-debug-info     build without debug information (and so without BTF): a much
#                       smaller tree and no -dbg package, which a resume test does not need
#   --target TARGET     what to make: bindeb-pkg (default, Debian/Ubuntu packages in the
#                       folder above TREE) or bzImage
#   --version-suffix S  appended to the kernel version (default: -mtrrfix, which needs at
#                       least one PATCH: a kernel without the fix is given another suffix)
# Without --config or --fragment the existing TREE/.config is kept, with only the options
# above set again, so a second run with more patches is an incremental rebuild. Patches are
# applied in order with patch -p1 and no fuzz (every context line must match); a patch that
# does not apply stops the build before anything is changed by it, and so does one already
# applied (patch --forward). The tools and, for bindeb-pkg, the packages the build needs
# are checked before any patch is applied.
set -eu

die() { echo "build-kernel.sh: $*" >&2; exit 1; }
# needs OPTION COUNT WHAT: OPTION, with COUNT arguments left (itself included), takes WHAT.
needs() { [ "$2" -ge 2 ] || die "$1 needs $3 (see --help)"; }

config="" fragment="" localmod=no debuginfo=keep target=bindeb-pkg suffix=-mtrrfix
while [ $# -gt 0 ]; do
  case "$1" in
    --config) needs "$1" $# "a file"; config=$2; shift 2 ;;
    --fragment) needs "$1" $# "a file"; fragment=$2; shift 2 ;;
    --localmodconfig) localmod=yes; shift ;;
    --no-debug-info) debuginfo=none; shift ;;
    --target) needs "$1" $# "bindeb-pkg or bzImage"; target=$2; shift 2 ;;
    --version-suffix) needs "$1" $# "a value"; suffix=$2; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || die "no kernel source tree given (see --help)"
tree=$1; shift
[ -f "$tree/Makefile" ] && [ -d "$tree/arch/x86" ] || die "$tree is not an unpacked kernel source tree"
case "$target" in bindeb-pkg|bzImage) ;; *) die "--target is bindeb-pkg or bzImage, not $target" ;; esac
[ -z "$config" ] || [ -f "$config" ] || die "no configuration file $config"
[ -z "$fragment" ] || [ -f "$fragment" ] || die "no configuration fragment $fragment"
[ -z "$config" ] || [ -z "$fragment" ] || die "--config and --fragment exclude each other"

# A kernel named -mtrrfix carries the fix: at least one patch that is neither the debug
# patch nor a test-only one (their headers say "not for merging" and "TEST ONLY").
if [ "$suffix" = -mtrrfix ]; then
  fixes=0
  for p in "$@"; do
    [ -f "$p" ] || continue
    sed -n '1,/^$/p' "$p" | grep -qiE 'not for merging|test.only' || fixes=$((fixes + 1))
  done
  [ "$fixes" -ge 1 ] ||
    die "no fix patch given for a kernel named -mtrrfix (only debug or test-only patches, or none): give the fix's patches, or another --version-suffix"
fi

# What the build needs, checked before the tree is changed. make bindeb-pkg checks the
# Build-Depends of the source package it writes (scripts/package/mkdebian) only after the
# patches are in: the same list is checked here first.
install="build-essential bc bison flex libelf-dev libssl-dev libdw-dev debhelper kmod python3 rsync cpio xz-utils zstd patch"
missing=""
# xz and zstd: the distributions' configurations compress the kernel and its modules.
for tool in make gcc flex bison bc perl patch cpio xz zstd; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
[ -z "$missing" ] || die "missing:$missing (Debian/Ubuntu: sudo apt install $install)"
if [ "$target" = bindeb-pkg ]; then
  command -v dpkg-query >/dev/null 2>&1 || die "bindeb-pkg makes Debian packages and needs dpkg; elsewhere use --target bzImage"
  for package in debhelper bc bison flex kmod libdw-dev libelf-dev libssl-dev python3 rsync; do
    dpkg-query -W -f '${db:Status-Status}' "$package" 2>/dev/null | grep -qx installed || missing="$missing $package"
  done
  [ -z "$missing" ] || die "make bindeb-pkg needs the packages$missing (sudo apt install $install)"
fi

# Absolute paths before changing directory (printf, not echo: a backslash stays itself;
# CDPATH unset: cd prints nothing; -- : a name may start with a dash).
abs() { (unset CDPATH; cd -- "$(dirname -- "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename -- "$1")"); }
[ -z "$config" ] || config=$(abs "$config")
[ -z "$fragment" ] || fragment=$(abs "$fragment")
# The patches stay the positional parameters, each one word whatever it holds (a blank, a
# glob character), made absolute in place.
count=$#
for p in "$@"; do
  [ -f "$p" ] || die "no patch file $p"
  set -- "$@" "$(abs "$p")"
done
shift "$count"
if [ -n "${LSMOD:-}" ]; then
  [ "$localmod" = yes ] || die "LSMOD is set but --localmodconfig is not given"
  [ -f "$LSMOD" ] || die "LSMOD names no file: $LSMOD"
  LSMOD=$(abs "$LSMOD"); export LSMOD # the tree is the working folder below
fi
cd "$tree"

# What would stop the build later is checked before the tree is changed.
if [ -n "$config" ] && [ "$debuginfo" = keep ] && grep -q '^CONFIG_DEBUG_INFO_BTF=y' "$config" && ! command -v pahole >/dev/null 2>&1; then
  die "$config builds BTF, which needs pahole (Debian/Ubuntu: sudo apt install dwarves)"
fi

for p in "$@"; do
  patch -p1 --fuzz=0 --forward --dry-run --batch --silent <"$p" >/dev/null 2>&1 ||
    die "$(basename "$p") does not apply to $(pwd) without fuzz (already applied, or another kernel version?)"
  patch -p1 --fuzz=0 --forward --batch --silent <"$p"
  echo "applied $(basename "$p")"
done

if [ -n "$fragment" ]; then
  make -s tinyconfig
  scripts/kconfig/merge_config.sh -m .config "$fragment" >/dev/null
  make -s olddefconfig
  # merge_config only warns about options it could not set: here that is an error.
  grep '^CONFIG_' "$fragment" | while read -r option; do
    grep -qx "$option" .config || die "$fragment asks for $option, which the configuration did not take"
  done
elif [ -n "$config" ]; then
  cp "$config" .config
  scripts/config --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
  make -s olddefconfig
elif [ ! -f .config ]; then
  die "no .config in $(pwd): give --config FILE or --fragment FILE"
else
  echo "keeping the existing .config (an incremental rebuild)"
fi
if [ "$localmod" = yes ]; then
  yes '' | make -s localmodconfig >/dev/null
  # kernlog capture reads the MTRRs through /dev/cpu/*/msr: keep that module, loaded or not.
  scripts/config --module X86_MSR
fi
if [ "$debuginfo" = none ]; then
  scripts/config -d DEBUG_INFO -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -d DEBUG_INFO_DWARF4 \
    -d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE
fi
scripts/config --set-str LOCALVERSION "$suffix"
make -s olddefconfig
if [ "$debuginfo" = none ] && grep -q '^CONFIG_DEBUG_INFO=y' .config; then
  die "--no-debug-info: the configuration kept CONFIG_DEBUG_INFO=y"
fi
if [ "$localmod" = yes ] && ! grep -qE '^CONFIG_X86_MSR=[ym]' .config; then
  die "--localmodconfig: the configuration dropped CONFIG_X86_MSR, which kernlog capture needs"
fi

if grep -q '^CONFIG_DEBUG_INFO_BTF=y' .config && ! command -v pahole >/dev/null 2>&1; then
  die "this configuration builds BTF, which needs pahole (Debian/Ubuntu: sudo apt install dwarves)"
fi

jobs=$(nproc 2>/dev/null || echo 2)
echo "building $target of $(make -s kernelversion)$suffix with $jobs jobs"
make -s -j"$jobs" "$target"
case "$target" in
  bzImage) echo "built $(pwd)/arch/x86/boot/bzImage" ;;
  bindeb-pkg) echo "built the packages:"; ls -1 "$(cd .. && pwd)"/linux-image-*"$suffix"_*.deb ;;
esac
