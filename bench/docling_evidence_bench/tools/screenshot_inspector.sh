#!/usr/bin/env bash
# Screenshot of the docling-evidence inspector in headless Chromium (Debian package `chromium`).
#
#   bench/docling_evidence_bench/tools/screenshot_inspector.sh [DOCUMENT] [OUT.png]
#
# DOCUMENT defaults to ../shared/fixtures/docling/2206.01062.json (a real Docling conversion with layout; it is read,
# never copied into the repository); OUT defaults to docs/inspector.png. Environment: PYTHON (default: python),
# CHROMIUM (default: chromium on PATH), WINDOW_SIZE (default: 1280,2000). Runs offline; the report stays in a temp dir.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)  # bench/docling_evidence_bench/tools/ of a checkout
document=${1:-$repo/../shared/fixtures/docling/2206.01062.json}
out=${2:-$repo/docs/inspector.png}
python=${PYTHON:-python}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
window=${WINDOW_SIZE:-1280,2000}

if [[ -z "$chromium" ]]; then
    echo "error: headless Chromium not found (Debian: apt-get install -y chromium; or set CHROMIUM=...)" >&2
    exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

HF_HUB_OFFLINE=1 "$python" -m docling_evidence.cli inspect "$document" -o "$work/report.html"
"$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --hide-scrollbars --user-data-dir="$work/profile" \
    --screenshot="$out" --window-size="$window" "file://$work/report.html" 2>"$work/chromium.log" \
    || { cat "$work/chromium.log" >&2; exit 1; }
echo "wrote $out"
