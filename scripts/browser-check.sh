#!/usr/bin/env bash
# Opens a report.html in headless Chromium (Debian's `chromium`, installed if
# missing) and checks what a reader would see, at 400 px and 1200 px wide:
# every chart's text (titles, labels, legends) inside the chart's box, at
# least 9 px on screen and clear of every other text of its chart, no two entries of a chart with the same colour (past
# the palette's 24, the same colour, marker and dash), and no page wider than
# the window (tables and charts scroll in their own boxes). Screenshots of both widths go to OUTDIR (default
# .build-browser/) for a person to look at.
#   scripts/browser-check.sh results/default/report.html [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:?usage: scripts/browser-check.sh REPORT.html [OUTDIR]}
out=${2:-.build-browser}
[ -f "$report" ] || { echo "error: $report does not exist; run scripts/quickstart.sh first" >&2; exit 1; }

browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "Installing chromium (headless browser for the report check)" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
  browser=$(command -v chromium)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
report=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
probe="$out/probe.html"

# The report with a script appended that opens every folded section,
# measures, and writes its findings into the page for --dump-dom to print.
{
  sed 's#</body></html>##' "$report"
  cat <<'JS'
<script>
const problems = [];
for (const d of document.querySelectorAll("details")) d.open = true;
let charts = 0;
for (const svg of document.querySelectorAll("svg.chart")) {
  charts++;
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.viewBox.baseVal.width;
  const title = svg.getAttribute("aria-label");
  const drawn = [];
  for (const t of svg.querySelectorAll("text")) {
    const r = t.getBoundingClientRect();
    if (r.width === 0) continue;
    // Glyph boxes as the browser lays them out: no two texts may overlap
    // (a line box is taller than its letters, so a pixel of slack each way).
    for (const [other, o] of drawn) {
      const dx = Math.min(r.right, o.right) - Math.max(r.left, o.left);
      const dy = Math.min(r.bottom, o.bottom) - Math.max(r.top, o.top) - 2 * (r.height * 0.15);
      if (dx > 1 && dy > 1) problems.push(`${title}: "${t.textContent}" overlaps "${other}"`);
    }
    drawn.push([t.textContent, r]);
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
      problems.push(`${title}: "${t.textContent}" reaches outside the chart`);
    const px = parseFloat(t.getAttribute("font-size")) * scale;
    if (px < 9) problems.push(`${title}: "${t.textContent}" is ${px.toFixed(1)} px on screen`);
  }
  // Up to the palette's 24 entries no two share a colour; past it, none
  // share colour, marker and dash.
  const entries = [...svg.querySelectorAll("[data-color]")];
  const seen = new Map();
  for (const e of entries) {
    const key = entries.length <= 24 ? e.dataset.color : `${e.dataset.color} ${e.dataset.marker} ${e.dataset.dash}`;
    if (seen.has(key)) problems.push(`${title}: ${seen.get(key)} and ${e.dataset.series} share ${key}`);
    seen.set(key, e.dataset.series);
  }
}
for (const el of document.querySelectorAll("p, td, th, h1, h2, h3")) {
  const size = parseFloat(getComputedStyle(el).fontSize);
  if (size < 9) problems.push(`text "${el.textContent.slice(0, 40)}" is ${size} px`);
}
if (document.documentElement.scrollWidth > window.innerWidth + 1)
  problems.push(`the page is ${document.documentElement.scrollWidth} px wide in a ${window.innerWidth} px window`);
const result = document.createElement("pre");
result.id = "evlab-check";
result.textContent = JSON.stringify({ width: window.innerWidth, charts, problems });
// In a frame (the narrow check), the finding goes to the page --dump-dom prints.
(window.parent === window ? document.body : window.parent.document.body).appendChild(result);
</script>
</body></html>
JS
} > "$probe"

# Headless Chromium's window is at least 500 px wide: the page is measured
# inside a frame of the width asked for, whose own viewport is that wide.
frame() { printf '<!DOCTYPE html><html><body style="margin:0"><iframe src="probe.html" style="border:0;width:%spx;height:2000px"></iframe></body></html>\n' "$1" > "$out/frame-$1.html"; }
flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --allow-file-access-from-files --virtual-time-budget=10000)
status=0
for width in 400 1200; do
  frame "$width"
  dom=$("$browser" "${flags[@]}" --window-size="$(( width < 1200 ? 1200 : width )),2000" --dump-dom "file://$out/frame-$width.html" 2>/dev/null)
  result=$(printf '%s' "$dom" | sed -n 's#.*<pre id="evlab-check">\(.*\)</pre>.*#\1#p' | sed 's/&quot;/"/g; s/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g')
  [ -n "$result" ] || { echo "error: the browser check did not run at $width px" >&2; exit 1; }
  python3 - "$width" "$result" <<'PY' || status=1
import json, sys
width, result = sys.argv[1], json.loads(sys.argv[2])
print(f"browser check at {result['width']} px: {result['charts']} charts, {len(result['problems'])} problems")
for problem in result["problems"][:40]:
    print("  " + problem)
sys.exit(1 if result["problems"] or result["charts"] == 0 else 0)
PY
  "$browser" "${flags[@]}" --window-size="$width,2400" --screenshot="$out/report-$width.png" \
    "file://$( [ "$width" -lt 500 ] && echo "$out/frame-$width.html" || echo "$report")" >/dev/null 2>&1
done
echo "screenshots: $out/report-400.png, $out/report-1200.png"
exit $status
