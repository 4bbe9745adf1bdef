# Fetch Debian packages without installing them (the linux-source-* trees, and the archive
# the Debian guest is built from). Sourced by .ci/prove-patches, examples/qemu-lab/run and
# .ci/debian-guest; it defines functions and the DEBIAN_SOURCE_* variables, nothing else.
#
#   debian_source_mirror      print the Debian archive to use: KERNLAB_DEBIAN_MIRROR if set,
#                             else the first archive labelled Debian in this machine's own
#                             APT configuration, else deb.debian.org (and says so)
#   debian_source_init WORK   private APT lists for trixie and trixie-backports under WORK,
#                             from debian_source_mirror's archive
#   debian_source_version PKG print the candidate version of PKG, or fail
#   debian_source_tree PKG VERSION DEST
#                             download PKG=VERSION (cached under WORK/debs) and unpack its
#                             kernel tarball into DEST (emptied first)
# Every failure names what went wrong and where its log is, and returns non-zero.

debian_source_mirror() {
  if [ -n "${KERNLAB_DEBIAN_MIRROR:-}" ]; then
    echo "${KERNLAB_DEBIAN_MIRROR%/}"
    return
  fi
  # The archives APT knows, with the label of their Release file (known once `apt update`
  # has run): Debian's own, not Debian-Security, not another distribution's.
  local mirror
  mirror=$(apt-get indextargets --format '$(LABEL) $(REPO_URI)' 2>/dev/null |
    awk '$1 == "Debian" { print $2; exit }')
  if [ -z "$mirror" ]; then
    mirror=http://deb.debian.org/debian
    echo "debian-source: this machine's APT configuration names no Debian archive (or its lists" \
      "were never updated): using $mirror; set KERNLAB_DEBIAN_MIRROR to use another" >&2
  fi
  echo "${mirror%/}"
}

debian_source_init() {
  mkdir -p "$1"
  DEBIAN_SOURCE_WORK=$(cd "$1" && pwd) # APT reads relative paths from /
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg apt_dir="$DEBIAN_SOURCE_WORK/apt" mirror sources
  [ -f "$keyring" ] || { echo "$keyring is missing (apt-get install debian-archive-keyring)" >&2; return 1; }
  mirror=$(debian_source_mirror)
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$DEBIAN_SOURCE_WORK/debs"
  sources=$(printf 'deb [signed-by=%s] %s trixie main\ndeb [signed-by=%s] %s trixie-backports main' \
    "$keyring" "$mirror" "$keyring" "$mirror")
  # Lists fetched from another archive are not this one's: fetch them again.
  if [ "$(cat "$apt_dir/sources.list" 2>/dev/null)" != "$sources" ]; then
    find "$apt_dir/lists" -maxdepth 1 -type f -delete
    echo "$sources" >"$apt_dir/sources.list"
  fi
  DEBIAN_SOURCE_MIRROR=$mirror
  DEBIAN_SOURCE_APT=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache" -o APT::Sandbox::User=root)
  # One update a day is enough: the lists are reused by every later call.
  if [ -z "$(find "$apt_dir/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
    echo "== updating the package lists of trixie and trixie-backports from $mirror"
    apt-get "${DEBIAN_SOURCE_APT[@]}" update >"$DEBIAN_SOURCE_WORK/apt-update.log" 2>&1 || {
      echo "cannot reach the Debian archive $mirror (network or mirror trouble; KERNLAB_DEBIAN_MIRROR chooses another); see $DEBIAN_SOURCE_WORK/apt-update.log" >&2
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
