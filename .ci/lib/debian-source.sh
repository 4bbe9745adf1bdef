# Fetch Debian's linux-source-* packages without installing them. Sourced by
# .ci/prove-patches and examples/qemu-lab/run; it defines functions and sets nothing else.
#
#   debian_source_init WORK   private APT lists for trixie and trixie-backports under WORK
#   debian_source_version PKG print the candidate version of PKG, or fail
#   debian_source_tree PKG VERSION DEST
#                             download PKG=VERSION (cached under WORK/debs) and unpack its
#                             kernel tarball into DEST (emptied first)
# Every failure names what went wrong and where its log is, and returns non-zero.

debian_source_init() {
  mkdir -p "$1"
  DEBIAN_SOURCE_WORK=$(cd "$1" && pwd) # APT reads relative paths from /
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg apt_dir="$DEBIAN_SOURCE_WORK/apt"
  [ -f "$keyring" ] || { echo "$keyring is missing (apt-get install debian-archive-keyring)" >&2; return 1; }
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$DEBIAN_SOURCE_WORK/debs"
  printf 'deb [signed-by=%s] http://deb.debian.org/debian trixie main\ndeb [signed-by=%s] http://deb.debian.org/debian trixie-backports main\n' \
    "$keyring" "$keyring" >"$apt_dir/sources.list"
  DEBIAN_SOURCE_APT=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
  # One update a day is enough: the lists are reused by every later call.
  if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
    echo "== updating the package lists of trixie and trixie-backports"
    apt-get "${DEBIAN_SOURCE_APT[@]}" update >"$DEBIAN_SOURCE_WORK/apt-update.log" 2>&1 || {
      echo "cannot reach Debian's package archive (network or mirror trouble); see $DEBIAN_SOURCE_WORK/apt-update.log" >&2
      return 1
    }
  fi
}

debian_source_version() {
  local version
  version=$(apt-cache "${DEBIAN_SOURCE_APT[@]}" policy "$1" | awk '/Candidate:/ { print $2 }')
  [ -n "$version" ] && [ "$version" != "(none)" ] || {
    echo "$1 is not in trixie or trixie-backports (apt-cache policy found no candidate)" >&2
    return 1
  }
  echo "$version"
}

debian_source_tree() {
  local pkg=$1 version=$2 dest=$3 work=$DEBIAN_SOURCE_WORK deb
  deb=$(ls "$work/debs/${pkg}_"*"_all.deb" 2>/dev/null | grep -F "_${version//\~/\~}_" | head -1 || true)
  if [ -z "$deb" ]; then
    (cd "$work/debs" && apt-get "${DEBIAN_SOURCE_APT[@]}" download "$pkg=$version" >"$work/download-$pkg.log" 2>&1) || {
      echo "cannot download $pkg $version (network or mirror trouble); see $work/download-$pkg.log" >&2
      return 1
    }
    deb=$(ls "$work/debs/${pkg}_"*"_all.deb" | grep -F "_${version//\~/\~}_" | head -1)
  fi
  rm -rf "$dest" "$work/deb-$pkg"
  mkdir -p "$dest" "$work/deb-$pkg"
  dpkg -x "$deb" "$work/deb-$pkg"
  tar -xf "$work/deb-$pkg/usr/src/$pkg.tar.xz" -C "$dest" --strip-components=1
  rm -rf "$work/deb-$pkg"
}
