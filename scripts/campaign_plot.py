#!/usr/bin/env python3
"""campaign_plot.py — plots of a fault campaign (testing/ft_campaign --json FILE).

    scripts/campaign_plot.py CAMPAIGN.json OUTDIR

Writes PNG files into OUTDIR:
  bits_<routine>.png     outcome fractions by flipped bit position 0..63 (bit-flip trials)
  regions_<routine>.png  outcome fractions by region and corruption class (all fault trials)
Needs matplotlib; without it the script says how to install it and exits 0 (no plots), so
nothing (CI included) depends on it. docs/reliability.md describes the classes.
"""
import json
import os
import sys
from collections import Counter, defaultdict

CLASSES = ["clean", "masked", "corrected", "reported", "FALSE-ALARM", "silent<lim", "SILENT>LIM",
           "unprotect", "not-appl", "ERROR"]
COLORS = {"clean": "#bbbbbb", "masked": "#8fbc8f", "corrected": "#2e8b57", "reported": "#4682b4",
          "FALSE-ALARM": "#ff8c00", "silent<lim": "#d8bfd8", "SILENT>LIM": "#b22222",
          "unprotect": "#8b008b", "not-appl": "#eeeeee", "ERROR": "#000000"}


def stacked(ax, labels, counts, title, xlabel):
    import numpy as np
    x = np.arange(len(labels))
    bottom = np.zeros(len(labels))
    totals = np.array([max(1, sum(counts[l].values())) for l in labels], dtype=float)
    for c in CLASSES:
        frac = np.array([counts[l].get(c, 0) for l in labels], dtype=float) / totals
        if frac.sum() == 0:
            continue
        ax.bar(x, frac, bottom=bottom, color=COLORS[c], label=c, width=0.85,
               edgecolor="none")
        bottom += frac
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=90 if len(labels) > 16 else 45, fontsize=7)
    ax.set_ylim(0, 1)
    ax.set_ylabel("fraction of trials")
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("campaign_plot.py: matplotlib is not installed, no plots written.\n"
              "  install it with:  apt-get install python3-matplotlib\n"
              "               or:  python3 -m pip install matplotlib")
        return 0
    with open(sys.argv[1]) as f:
        trials = json.load(f)
    out = sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for routine in sorted({t["routine"] for t in trials}):
        rt = [t for t in trials if t["routine"] == routine and t["faults"]]
        bits = defaultdict(Counter)
        regs = defaultdict(Counter)
        for t in rt:
            f = t["faults"][0]
            if f["bit"] >= 0:
                bits[f["bit"]][t["class"]] += 1
            regs["%s\n%s" % (f["region"], f["class"])][t["class"]] += 1
        fig, ax = plt.subplots(figsize=(14, 4.5))
        labels = list(range(64))
        stacked(ax, labels, {b: bits[b] for b in labels},
                "%s: outcome by flipped bit (%d bit-flip trials)"
                % (routine, sum(sum(c.values()) for c in bits.values())),
                "bit (0..51 mantissa, 52..62 exponent, 63 sign)")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "bits_%s.png" % routine), dpi=110)
        plt.close(fig)
        fig, ax = plt.subplots(figsize=(12, 4.5))
        labels = sorted(regs)
        stacked(ax, labels, regs, "%s: outcome by region and corruption (%d fault trials)"
                % (routine, len(rt)), "region / corruption class")
        fig.tight_layout()
        fig.savefig(os.path.join(out, "regions_%s.png" % routine), dpi=110)
        plt.close(fig)
        print("wrote %s/bits_%s.png, %s/regions_%s.png" % (out, routine, out, routine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
