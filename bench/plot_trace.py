#!/usr/bin/env python3
"""Plot the timeline of one ft_dgeqrf call (testing_ft_dgeqrf --trace-file F; docs/qr.md
"Timeline"): one row per lane (host and each queue), a bar per span coloured by phase.

usage: python3 bench/plot_trace.py F.csv -o out.png [--size MxN] [--from ms] [--to ms]
The CSV has rows m,n,lane,phase,step,t0_ms,t1_ms; --size picks one call (default: the last
size in the file); --from/--to zoom in on a window of the call.
"""
import argparse
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LANES = ["host", "main", "check", "side", "copy_out"]
COLORS = {
    "panel": "#d62728", "lookahead": "#ff7f0e", "update": "#1f77b4", "checksum": "#9467bd",
    "arrive": "#8c564b", "checkpoint": "#e377c2", "after": "#7f7f7f", "copy": "#17becf",
    "wait": "#dddddd", "checks": "#bcbd22", "issue": "#aec7e8", "seal": "#98df8a",
    "encode": "#2ca02c", "verify": "#2ca02c", "stage": "#17becf", "recover": "#000000",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--size")
    ap.add_argument("--from", dest="t_from", type=float)
    ap.add_argument("--to", dest="t_to", type=float)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    rows = list(csv.reader(open(a.csv)))
    if not rows:
        sys.exit("empty trace")
    size = a.size or "%sx%s" % (rows[-1][0], rows[-1][1])
    spans = [r for r in rows if "%sx%s" % (r[0], r[1]) == size]
    if not spans:
        sys.exit("no spans for size %s" % size)
    fig, ax = plt.subplots(figsize=(14, 3.6))
    seen = set()
    t_end = 0.0
    for m, n, lane, phase, step, t0, t1 in spans:
        t0, t1 = float(t0), float(t1)
        if a.t_from is not None and t1 < a.t_from:
            continue
        if a.t_to is not None and t0 > a.t_to:
            continue
        t_end = max(t_end, t1)
        y = LANES.index(lane) if lane in LANES else len(LANES)
        lab = phase if phase not in seen else None
        seen.add(phase)
        ax.barh(y, max(t1 - t0, 1e-3), left=t0, height=0.8, color=COLORS.get(phase, "#333333"),
                edgecolor="none", label=lab)
    ax.set_yticks(range(len(LANES)))
    ax.set_yticklabels(LANES)
    ax.invert_yaxis()
    ax.set_xlabel("ms from the call's start")
    if a.t_from is not None or a.t_to is not None:
        ax.set_xlim(a.t_from or 0.0, a.t_to or t_end)
    ax.set_title(a.title or "ft_dgeqrf timeline, %s" % size)
    ax.legend(ncol=8, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)


if __name__ == "__main__":
    main()
