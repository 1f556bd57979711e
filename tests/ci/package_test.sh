#!/usr/bin/env bash
# The .deb of the release build (CPack, no second build): it installs into a fresh dpkg
# root, the installed apfsim checks an installed scenario, the installed plugin answers
# --help and kubectl finds it, and removing the package leaves no file of it behind.
# usage: tests/ci/package_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL package_test: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$scratch/pkg" >"$scratch/cpack.log" 2>&1) ||
  fail "cpack: $(tail -5 "$scratch/cpack.log")"
deb=$(ls "$scratch"/pkg/apfsim_*.deb) || fail "no .deb in $(ls "$scratch/pkg")"
info=$(dpkg-deb --info "$deb")
grep -q "Depends:.*libyaml-cpp" <<<"$info" || fail "no shared-library Depends"

# A fresh root with an empty dpkg database; the libraries come from the host, so the
# dependencies, unknown to that database, are forced.
root=$scratch/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status"
dpkg --root="$root" --force-depends --force-not-root --log=/dev/null -i "$deb" \
  >"$scratch/dpkg.log" 2>&1 || fail "dpkg -i: $(tail -5 "$scratch/dpkg.log")"
for f in usr/bin/apfsim usr/bin/kubectl-apfsim usr/share/apfsim/scenarios/apf-lab.yaml \
         usr/share/apfsim/scenarios/samples/objects.yaml usr/share/apfsim/tools/plot.py \
         usr/share/bash-completion/completions/apfsim usr/share/zsh/vendor-completions/_apfsim \
         usr/share/man/man1/apfsim.1; do
  [ -e "$root/$f" ] || fail "the package did not install /$f"
done
"$root/usr/bin/apfsim" check "$root/usr/share/apfsim/scenarios/apf-lab.yaml" --quiet \
  --out "$scratch/out" >"$scratch/check.log" 2>&1 || fail "installed check: $(tail -5 "$scratch/check.log")"
help=$("$root/usr/bin/kubectl-apfsim" --help)
grep -q "kubectl apfsim snapshot" <<<"$help" ||
  fail "kubectl apfsim --help"
if command -v kubectl >/dev/null 2>&1; then
  PATH="$root/usr/bin:$PATH" kubectl plugin list 2>/dev/null | grep -q "$root/usr/bin/kubectl-apfsim" ||
    fail "kubectl plugin list does not find the installed kubectl-apfsim"
fi
dpkg --root="$root" --force-not-root --log=/dev/null -r apfsim >"$scratch/remove.log" 2>&1 ||
  fail "dpkg -r: $(tail -5 "$scratch/remove.log")"
left=$(cd "$root" && find . -path "./var" -prune -o -type f -print | head -5)
[ -z "$left" ] || fail "files left after dpkg -r: $left"
echo "package_test: $(basename "$deb") installed, checked a scenario, and removed cleanly"
