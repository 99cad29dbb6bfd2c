#!/usr/bin/env python3
"""plot_dgeqrf.py — TFLOP/s against n from bench_dgeqrf_gpu logs (bench/run_dgeqrf_table.sh).

    python3 bench/plot_dgeqrf.py [--logy] -o docs/img/dgeqrf_tflops.png square.txt tall.txt

Reads the machine-readable rows of each log (between '# TABLE BEGIN' and '# TABLE END': op mode
m n k param method runs median_s min_s max_s TFLOP/s protect_med_s ratio_peer ratio_peer2
faults_per_call check) and writes one PNG with two panels: square (m = n) and tall 4:1
(m = 4n), x = n on a log2 axis, y = TFLOP/s from the median time, one line per method, bars from
the min and max times. Rows of other shapes are reported and left out. A row whose check is
FAIL is drawn with an 'x' and reported (its time is not a valid result). The title is the
device line of the logs' headers. Rows of methods a log skipped (lapacke above --lapacke-max)
are absent from the table, so those lines simply stop. --logy: log10 y axis (the host's LAPACK
and the small sizes sit near 0 on the linear one).
"""
import argparse
import os
import sys

# fixed styles: the same method looks the same in both panels and in every plot
STYLE = {
    "cusolver": dict(color="black", marker="o", linestyle="-"),
    "ftla-on": dict(color="tab:blue", marker="s", linestyle="-"),
    "ftla-off": dict(color="tab:blue", marker="s", linestyle="--", markerfacecolor="none"),
    "ftla-on-cpu": dict(color="tab:orange", marker="^", linestyle="-"),
    "ftla-off-cpu": dict(color="tab:orange", marker="^", linestyle="--", markerfacecolor="none"),
    "ftla-on-noQ": dict(color="tab:green", marker="D", linestyle=":"),
    "lapacke": dict(color="tab:gray", marker="v", linestyle="-."),
}
ORDER = list(STYLE)
NFIELD = 17


def parse_log(path):
    """Rows of the log's table as dicts, the rate column's unit, and the header lines."""
    rows, unit, header, inside = [], None, {}, False
    with open(path, errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("% device ") and "device" not in header:
                header["device"] = line[2:].strip()
            elif line.startswith("% lib: ") and "lib" not in header:
                header["lib"] = line[2:].strip()
            elif line.startswith("% OPENBLAS_CORETYPE=") and "openblas" not in header:
                header["openblas"] = line[2:].strip()
            if line.startswith("# TABLE BEGIN"):
                inside = True
                continue
            if line.startswith("# TABLE END"):
                inside = False
                continue
            if not inside:
                continue
            if line.startswith("# op "):
                unit = line.split()[12]  # the rate column's name, e.g. TFLOP/s
                continue
            if line.startswith("#") or not line.strip():
                continue
            f_ = line.split()
            if len(f_) != NFIELD:
                sys.exit(f"{path}:{lineno}: table row with {len(f_)} fields, want {NFIELD}")
            try:
                rows.append(dict(op=f_[0], mode=f_[1], m=int(f_[2]), n=int(f_[3]),
                                 method=f_[6], med=float(f_[8]), tmin=float(f_[9]),
                                 tmax=float(f_[10]), rate=float(f_[11]), check=f_[16],
                                 src=f"{path}:{lineno}"))
            except ValueError as e:
                sys.exit(f"{path}:{lineno}: bad table row ({e})")
    if inside:
        print(f"plot_dgeqrf.py: warning: {path}: no '# TABLE END' (run cut short?)",
              file=sys.stderr)
    return rows, unit, header


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-o", "--output", required=True, help="PNG file to write")
    ap.add_argument("--logy", action="store_true", help="log10 y axis")
    ap.add_argument("logs", nargs="+", help="bench_dgeqrf_gpu logs")
    args = ap.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_dgeqrf.py: matplotlib is not installed (apt-get install "
                 "python3-matplotlib, or python3 -m pip install matplotlib)")

    rows, units, devices, hosts = [], set(), [], []
    for path in args.logs:
        r, unit, header = parse_log(path)
        if not r:
            print(f"plot_dgeqrf.py: warning: {path}: no table rows", file=sys.stderr)
        rows += r
        if unit:
            units.add(unit)
        for key, lst in (("device", devices), ("openblas", hosts)):
            if key in header and header[key] not in lst:
                lst.append(header[key])
    rows = [r for r in rows if r["op"] == "dgeqrf"]
    if not rows:
        sys.exit("plot_dgeqrf.py: no dgeqrf table rows in the logs")
    if len(units) > 1:
        sys.exit(f"plot_dgeqrf.py: logs disagree on the rate unit: {sorted(units)}")
    unit = units.pop() if units else "TFLOP/s"
    if len({r["mode"] for r in rows}) > 1:
        print("plot_dgeqrf.py: warning: logs mix device and host pointer modes",
              file=sys.stderr)

    # (panel, method) -> {n: row}; a point given twice keeps the later log's and says so
    panels = {"square": {}, "tall": {}}
    for r in rows:
        if r["m"] == r["n"]:
            shape = "square"
        elif r["m"] == 4 * r["n"]:
            shape = "tall"
        else:
            print(f"plot_dgeqrf.py: {r['src']}: m={r['m']} n={r['n']} is neither square nor "
                  "4:1, left out", file=sys.stderr)
            continue
        pts = panels[shape].setdefault(r["method"], {})
        if r["n"] in pts:
            print(f"plot_dgeqrf.py: warning: {r['src']}: {r['method']} m={r['m']} n={r['n']} "
                  f"also at {pts[r['n']]['src']}; the later one is plotted", file=sys.stderr)
        pts[r["n"]] = r
        if r["check"] != "ok":
            print(f"plot_dgeqrf.py: warning: {r['src']}: {r['method']} m={r['m']} n={r['n']} "
                  f"check {r['check']} (drawn with x)", file=sys.stderr)

    fig, axes = plt.subplots(1, 2, figsize=(12, 5))
    titles = {"square": "square (m = n)", "tall": "tall 4:1 (m = 4n)"}
    for ax, shape in zip(axes, ("square", "tall")):
        methods = sorted(panels[shape], key=lambda k: (ORDER.index(k) if k in ORDER
                                                       else len(ORDER), k))
        for meth in methods:
            pts = [panels[shape][meth][n] for n in sorted(panels[shape][meth])]
            x = [p["n"] for p in pts]
            y = [p["rate"] for p in pts]
            # rate = flops / median, so flops / max and flops / min bound it
            lo = [p["rate"] - p["rate"] * p["med"] / p["tmax"] for p in pts]
            hi = [p["rate"] * p["med"] / p["tmin"] - p["rate"] for p in pts]
            st = STYLE.get(meth, dict(marker="o", linestyle="-"))
            line = ax.errorbar(x, y, yerr=[lo, hi], capsize=3, label=meth, **st)
            bad = [(p["n"], p["rate"]) for p in pts if p["check"] != "ok"]
            if bad:
                ax.plot(*zip(*bad), linestyle="none", marker="x", markersize=12,
                        color=line[0].get_color())
        ax.set_xscale("log", base=2)
        ns = sorted({n for pts in panels[shape].values() for n in pts})
        if ns:
            ax.set_xticks(ns)
            ax.set_xticklabels([str(n) if shape == "square" else f"{n}\n(m={4 * n})"
                                for n in ns])
        ax.set_xlabel("n")
        ax.set_ylabel(unit)
        if args.logy:
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_title(titles[shape])
        if methods:
            ax.legend(fontsize=8)
        else:
            ax.text(0.5, 0.5, "no rows", ha="center", va="center", transform=ax.transAxes)
    title = "dgeqrf: " + ("; ".join(devices) if devices else "device unknown (no header line)")
    if hosts:
        title += "\nhost LAPACK (lapacke, ftla's host panels): " + "; ".join(hosts)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    out_dir = os.path.dirname(args.output)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
    fig.savefig(args.output, dpi=120)
    print(f"plot_dgeqrf.py: wrote {args.output} ({len(rows)} rows from {len(args.logs)} logs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
