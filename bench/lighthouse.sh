#!/usr/bin/env bash
# Lighthouse (mobile, simulated slow 4G, 4x CPU slowdown) on /, /products and a product page of
# a running production server.
# Usage: bench/lighthouse.sh [BASE_URL]   (default http://127.0.0.1:3000; start it with `make run`)
# Prints, per page, the median of RUNS runs (default 5) of: performance score, LCP, total bytes,
# TBT, CLS and accessibility score, and writes bench/results/lighthouse.json with the conditions
# (commit, machine load) so that results can be compared. Targets (issue 15): LCP <= 2.0 s,
# performance >= 0.97, total <= 200 KB on each page.
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_URL="${1:-http://127.0.0.1:3000}"
RUNS="${RUNS:-5}"
export PATH="$PWD/.venv/bin:$PATH"
LH_DIR=bench/.lighthouse
if [ ! -x "$LH_DIR/node_modules/.bin/lighthouse" ]; then
  mkdir -p "$LH_DIR"
  echo '{"name": "lighthouse-runner", "private": true}' > "$LH_DIR/package.json"
  (cd "$LH_DIR" && npm install --no-audit --no-fund lighthouse@13 >/dev/null)
fi
# A product page: the first product the sitemap lists.
PRODUCT_PATH=$(curl -fsS "$BASE_URL/sitemap.xml" | grep -o '<loc>[^<]*/products/[^<?]*</loc>' \
  | sed -n -e '1s#<loc>[^<]*\(/products/[^<]*\)</loc>#\1#p')
if [ -z "$PRODUCT_PATH" ]; then echo "no product in $BASE_URL/sitemap.xml" >&2; exit 1; fi
PATHS=("/" "/products" "$PRODUCT_PATH")
mkdir -p bench/results
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# Runs interleave the pages, so that a burst of load on this shared machine spreads over all three.
for run in $(seq 1 "$RUNS"); do
  for i in "${!PATHS[@]}"; do
    CHROME_PATH=/usr/bin/chromium "$LH_DIR/node_modules/.bin/lighthouse" "$BASE_URL${PATHS[$i]}" \
      --only-categories=performance,accessibility --form-factor=mobile --throttling-method=simulate \
      --chrome-flags="--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking --disable-component-update --disable-sync --no-first-run" \
      --output=json --output-path="$tmp/page${i}_${run}.json" --quiet
  done
done
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$tmp" "$RUNS" "$LOAD_BEFORE" "$LOAD_AFTER" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "${PATHS[@]}" <<'PY'
import datetime, json, os, pathlib, statistics, sys
tmp, runs, load_before, load_after, commit, *paths = sys.argv[1:]
tmp, runs = pathlib.Path(tmp), int(runs)
out = {
    "conditions": {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": commit,
        "runs_per_page": runs,
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": load_after,
        "lighthouse": "13, mobile, simulated throttling (slow 4G, 4x CPU)",
    },
    "targets": {"lcp_s": 2.0, "performance": 0.97, "total_kb": 200},
    "pages": {},
}
for i, path in enumerate(paths):
    reports = [json.loads((tmp / f"page{i}_{n}.json").read_text()) for n in range(1, runs + 1)]
    def med(f):
        return statistics.median(f(r) for r in reports)
    audit = lambda r, name: r["audits"][name]["numericValue"]
    row = {
        "performance": med(lambda r: r["categories"]["performance"]["score"]),
        "accessibility": med(lambda r: r["categories"]["accessibility"]["score"]),
        "lcp_s": round(med(lambda r: audit(r, "largest-contentful-paint")) / 1000, 2),
        "fcp_s": round(med(lambda r: audit(r, "first-contentful-paint")) / 1000, 2),
        "total_kb": round(med(lambda r: audit(r, "total-byte-weight")) / 1000, 1),
        "tbt_ms": round(med(lambda r: audit(r, "total-blocking-time"))),
        "cls": round(med(lambda r: audit(r, "cumulative-layout-shift")), 3),
        "performance_runs": [r["categories"]["performance"]["score"] for r in reports],
        "lcp_runs_s": [round(audit(r, "largest-contentful-paint") / 1000, 2) for r in reports],
    }
    failing = sorted({a for r in reports for a, v in r["audits"].items()
                      if v.get("score") is not None and v["score"] < 1 and a in
                      {k["id"] for k in r["categories"]["accessibility"]["auditRefs"]}})
    row["accessibility_issues"] = failing
    row["meets_targets"] = row["lcp_s"] <= 2.0 and row["performance"] >= 0.97 and row["total_kb"] <= 200
    key = "/products/{id}" if path.startswith("/products/") else path
    out["pages"][key] = {"path": path, **row}
    print(f"{key:15} performance {row['performance']:.2f}  LCP {row['lcp_s']:.2f} s  FCP {row['fcp_s']:.2f} s  "
          f"bytes {row['total_kb']:.0f} KB  TBT {row['tbt_ms']} ms  CLS {row['cls']}  "
          f"accessibility {row['accessibility']:.2f}" + (f"  a11y issues: {', '.join(failing)}" if failing else ""))
print(f"load average before {load_before}, after {load_after}; commit {commit}")
pathlib.Path("bench/results/lighthouse.json").write_text(json.dumps(out, indent=2) + "\n")
PY
