#!/usr/bin/env bash
# Lighthouse (mobile, simulated throttling) on / and /products of a running production server.
# Usage: bench/lighthouse.sh [BASE_URL]   (default http://127.0.0.1:3000; start it with `make run`)
# Prints performance score, LCP, total bytes and accessibility score per page (median of RUNS runs)
# and writes bench/results/lighthouse.json.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_URL="${1:-http://127.0.0.1:3000}"
RUNS="${RUNS:-3}"
export PATH="$PWD/.venv/bin:$PATH"
LH_DIR=bench/.lighthouse
if [ ! -x "$LH_DIR/node_modules/.bin/lighthouse" ]; then
  mkdir -p "$LH_DIR"
  (cd "$LH_DIR" && npm init -y >/dev/null && npm install --no-audit --no-fund lighthouse@13 >/dev/null)
fi
mkdir -p bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for path in / /products; do
  name=$(printf '%s' "$path" | tr -c 'a-z0-9' '_')
  for run in $(seq 1 "$RUNS"); do
    CHROME_PATH=/usr/bin/chromium "$LH_DIR/node_modules/.bin/lighthouse" "$BASE_URL$path" \
      --only-categories=performance,accessibility --form-factor=mobile --throttling-method=simulate \
      --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking --disable-component-update --disable-sync --no-first-run" \
      --output=json --output-path="$tmp/${name}_${run}.json" --quiet
  done
done
python3 - "$tmp" "$RUNS" <<'PY'
import json, statistics, sys, pathlib
tmp, runs = pathlib.Path(sys.argv[1]), int(sys.argv[2])
out = {}
for path in ("/", "/products"):
    name = "".join(c if c.isalnum() else "_" for c in path)
    reports = [json.loads((tmp / f"{name}_{i}.json").read_text()) for i in range(1, runs + 1)]
    def med(f):
        return statistics.median(f(r) for r in reports)
    row = {
        "performance": med(lambda r: r["categories"]["performance"]["score"]),
        "accessibility": med(lambda r: r["categories"]["accessibility"]["score"]),
        "lcp_s": round(med(lambda r: r["audits"]["largest-contentful-paint"]["numericValue"]) / 1000, 2),
        "total_kib": round(med(lambda r: r["audits"]["total-byte-weight"]["numericValue"]) / 1024, 1),
        "tbt_ms": round(med(lambda r: r["audits"]["total-blocking-time"]["numericValue"])),
        "runs": runs,
    }
    failing = sorted({a for r in reports for a, v in r["audits"].items()
                      if v.get("score") is not None and v["score"] < 1 and a in
                      {k["id"] for k in r["categories"]["accessibility"]["auditRefs"]}})
    row["accessibility_issues"] = failing
    out[path] = row
    print(f"{path:10} performance {row['performance']:.2f}  LCP {row['lcp_s']:.2f} s  "
          f"bytes {row['total_kib']:.0f} KiB  TBT {row['tbt_ms']} ms  accessibility {row['accessibility']:.2f}"
          + (f"  a11y issues: {', '.join(failing)}" if failing else ""))
pathlib.Path("bench/results/lighthouse.json").write_text(json.dumps(out, indent=2))
PY
