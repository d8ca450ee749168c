#!/usr/bin/env bash
# The GitHub Action's first step (action.yml): puts lmp-check on PATH.
#
#   INPUT_VERSION=release  the release of the action's ref (ACTION_REF, a tag
#                          such as v1.2.0); a branch or a commit has no
#                          release, and builds from source instead
#   INPUT_VERSION=vX.Y.Z   that release
#   INPUT_VERSION=source   go build from the action's own checkout
#
# A release archive is checked against the release's checksums.txt.
set -euo pipefail
action_dir="$(cd "$(dirname "$0")/.." && pwd)"
dest="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/lmp-check-bin"
mkdir -p "$dest"
version="${INPUT_VERSION:-release}"
if [ "$version" = release ]; then
    version="${ACTION_REF:-}"
fi
if [[ ! "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
    if [ "$version" != source ]; then
        echo "lmp-check: ${version:-this ref} is not a release tag: building lmp-check from the action's source"
    fi
    version=source
fi

if [ "$version" = source ]; then
    command -v go >/dev/null || { echo "lmp-check: building from source needs Go (actions/setup-go)" >&2; exit 2; }
    (cd "$action_dir" && go build -o "$dest/" ./cmd/lmp-check)
else
    case "${RUNNER_OS:-$(uname -s)}" in
    Linux) os=linux ext=tar.gz ;;
    macOS | Darwin) os=darwin ext=tar.gz ;;
    Windows | MINGW* | MSYS*) os=windows ext=zip ;;
    *) echo "lmp-check: no release build for ${RUNNER_OS:-$(uname -s)}" >&2; exit 2 ;;
    esac
    case "${RUNNER_ARCH:-$(uname -m)}" in
    X64 | x86_64 | amd64) arch=amd64 ;;
    ARM64 | aarch64 | arm64) arch=arm64 ;;
    *) echo "lmp-check: no release build for ${RUNNER_ARCH:-$(uname -m)}" >&2; exit 2 ;;
    esac
    archive="lmpkit_${version#v}_${os}_${arch}.${ext}"
    base="${LMPKIT_RELEASES:-https://github.com/loomi-lmp/lmpkit/releases/download}/$version"
    work="$(mktemp -d)"
    curl -fsSL --retry 3 -o "$work/$archive" "$base/$archive"
    curl -fsSL --retry 3 -o "$work/checksums.txt" "$base/checksums.txt"
    (cd "$work" && grep " ${archive}\$" checksums.txt | sha256sum -c -)
    if [ "$ext" = zip ]; then
        unzip -q -o "$work/$archive" -d "$work/x"
    else
        mkdir -p "$work/x" && tar -xzf "$work/$archive" -C "$work/x"
    fi
    find "$work/x" -name 'lmp-check*' -type f -exec cp {} "$dest/" \;
fi
if [ -n "${GITHUB_PATH:-}" ]; then
    echo "$dest" >>"$GITHUB_PATH"
fi
"$dest/lmp-check" --version
