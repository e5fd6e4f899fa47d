#!/usr/bin/env bash
# Installs from Debian's packages every program in scripts/programs.txt that is not on the PATH.
# --print: only print the packages it would install, one a line (test/unit/layout/programs.test.ts).
# Only shell builtins before apt-get, so it answers with any PATH.
set -euo pipefail

declare -A seen=()
missing=()
while read -r program package _; do
  case "$program" in '' | '#'*) continue ;; esac
  command -v "$program" >/dev/null 2>&1 && continue
  [ -n "${seen[$package]:-}" ] && continue
  seen[$package]=1
  missing+=("$package")
  [ "${1:-}" = --print ] || echo "$program not found: installing Debian's $package"
done <"${BASH_SOURCE[0]%/*}/programs.txt"

if [ "${1:-}" = --print ]; then
  [ ${#missing[@]} -eq 0 ] || printf '%s\n' "${missing[@]}"
  exit 0
fi
[ ${#missing[@]} -eq 0 ] && exit 0
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
