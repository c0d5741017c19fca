#!/usr/bin/env python3
"""The LPDT paper's Tables 2 and 5 (test MSE on 14 real data sets) run with the authors' own
code (GitHub Karlmyh/LPDT, package `LPDT`, class LPDTreeRegressor) on exactly our splits, as
the third column of `dp-repro check specs/lpdt/table2.yaml` (reported.authors_code).

What runs, per data set and repetition (public / private / test rows from
`dp-repro splits specs/lpdt/table2.yaml`, already min-max scaled over the whole data set):

  LPDT-M  LPDTreeRegressor(splitter="msemaxedge",   estimator="random_permutation", ...)
  LPDT-V  LPDTreeRegressor(splitter="msereduction", estimator="random_permutation", ...)
          public_X / public_Y = the public rows, fit on the private rows, MSE on the test rows;
          grid (the paper's, in the code's names): max_depth {1,2,3,4} x min_samples_leaf
          {2,5,10,20,40,60,80,100,120,140,160} x proportion_budget {0.3,0.5,0.7}, at every
          epsilon of {0.5,1,2,4,6,8}; min_samples_split=2 as the authors' simulation.py; every
          other argument at the class default (random_state=666, search_number=10,
          threshold=0, range_x="unit", min_ratio_pri_est=0). The class reseeds NumPy with 666
          at every fit (its splitter's constructor), and the label range is that of the
          private training labels passed to fit: both are left as the authors wrote them.
  DT      scikit-learn DecisionTreeRegressor(max_depth) with max_depth {1,2,3,4}, every other
          argument at its default, fit on the private rows (the paper's non-private baseline;
          the authors' repository has no DT script of its own).
  PHIST, APHIST, DECONV: Karlmyh/LPDT has no implementation of them, so one "cannot run"
          row per cell is written.

Selection (the oracle of the paper's tables, as the authors' sister repository Karlmyh/LPCT
summarises its runs): for each (data set, method, epsilon) the grid point with the lowest
mean test MSE over the repetitions run (ties: the first in grid order), then that grid
point's MSE at every repetition.

Shortcut, exact: the fitted model is a deterministic function of the tree (grown from the
public rows only; it does not draw random numbers), epsilon and proportion_budget, since
every fit reseeds NumPy with 666. So for each (max_depth, min_samples_leaf) the script fits
one model in full, and when its tree (features, thresholds, children) equals the tree of an
earlier min_samples_leaf, it reuses that grid point's values for the other (epsilon,
proportion_budget) pairs, after checking that the one full fit gives exactly the reused
value (--no-reuse fits every grid point).

Writes the grid file (every grid point, tidy: dataset,method,epsilon,grid_point,repetition,
metric,value) and the selected file (one row per repetition of each cell; `#` lines give
the provenance) that `dp-repro check` reads.

Needs numpy, scipy, scikit-learn, numba and a checkout of Karlmyh/LPDT passed as
--lpdt-src DIR.

    python scripts/authors-lpdt.py --lpdt-src DIR --splits DIR --out FILE --grid-out FILE
        [--datasets LIST] [--methods LIST] [--epsilons LIST] [--reps N|LIST] [--no-reuse]
    python scripts/authors-lpdt.py ... --from-grid GRID1 GRID2 ...   (merge chunks, select)
        [--note "provenance line"]
"""
import argparse
import csv
import datetime
import hashlib
import json
import os
import shlex
import subprocess
import sys
import time
from collections import defaultdict

import numpy as np

ALL_METHODS = ["DT", "LPDT-M", "LPDT-V", "APHIST", "PHIST", "DECONV"]
SPLITTER = {"LPDT-M": "msemaxedge", "LPDT-V": "msereduction"}
EPSILONS = [0.5, 1, 2, 4, 6, 8]
DEPTHS = [1, 2, 3, 4]
MIN_LEAF = [2, 5, 10, 20, 40, 60, 80, 100, 120, 140, 160]
RHO = [0.3, 0.5, 0.7]
DT_DEPTHS = [1, 2, 3, 4]
NOT_IN_REPO = "cannot run: the authors' repository Karlmyh/LPDT has no implementation of {m}"


def parse_list(text, cast):
    return None if text is None else [cast(t) for t in text.split(",") if t.strip()]


def parse_reps(text, available):
    """'N' = repetitions 1..N; otherwise a comma list with ranges, e.g. '2,5-7'."""
    if text is None:
        return available
    if text.isdigit():
        return [r for r in available if r <= int(text)]
    reps = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        reps += list(range(int(lo), int(hi or lo) + 1))
    return [r for r in reps if r in available]


def fmt_eps(e):
    return f"{e:g}"


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lpdt-src", required=True, help="a checkout of Karlmyh/LPDT")
    ap.add_argument("--splits", required=True, help="folder written by `dp-repro splits`")
    ap.add_argument("--out", required=True, help="selected file (one row per repetition)")
    ap.add_argument("--grid-out", required=True, help="grid file (every grid point)")
    ap.add_argument("--datasets", help="comma list (default: all of splits.json)")
    ap.add_argument("--methods", help=f"comma list from {','.join(ALL_METHODS)} (default all)")
    ap.add_argument("--epsilons", help="comma list (default 0.5,1,2,4,6,8)")
    ap.add_argument("--reps", help="N (repetitions 1..N) or a list such as 1,3,5-7 (default all)")
    ap.add_argument("--note", action="append", default=[],
                    help="a provenance line to add to the selected file's comments (repeatable)")
    ap.add_argument("--no-reuse", action="store_true", help="fit every grid point in full")
    ap.add_argument("--from-grid", nargs="+", metavar="FILE",
                    help="fit nothing: read grid files of earlier runs (e.g. of disjoint "
                         "--reps chunks), write them merged to --grid-out and select from them")
    args = ap.parse_args()

    sys.path.insert(0, args.lpdt_src)
    from LPDT.tree import LPDTreeRegressor
    from sklearn.tree import DecisionTreeRegressor

    meta = json.load(open(os.path.join(args.splits, "splits.json")))
    if meta["scaling"] == "public":
        sys.exit("splits.json says scaling 'public': this script expects scaling 'whole' or 'none'")
    datasets = parse_list(args.datasets, str) or [d["name"] for d in meta["datasets"]]
    methods = parse_list(args.methods, str) or ALL_METHODS
    epsilons = parse_list(args.epsilons, float) or EPSILONS
    files = {d["name"]: d["file"] for d in meta["datasets"]}

    parts = defaultdict(list)  # (dataset, repetition, part) -> rows
    with open(os.path.join(args.splits, "splits.csv")) as f:
        for r in csv.DictReader(f):
            if r["dataset"] in datasets:
                parts[(r["dataset"], int(r["repetition"]), r["part"])].append(int(r["row"]))
    available = sorted({k[1] for k in parts})
    reps = parse_reps(args.reps, available)
    log(f"datasets {datasets}; methods {methods}; epsilons {epsilons}; repetitions {reps}")

    grid_rows = []  # (dataset, method, eps or None, grid_point, rep, value)
    cannot = []  # (dataset, method, eps, note)
    fit_seconds = defaultdict(list)
    t_start = time.time()

    for gfile in args.from_grid or []:
        with open(gfile) as f:
            for r in csv.DictReader(f):
                e = float(r["epsilon"]) if r["epsilon"] else None
                rep = int(r["repetition"])
                if r["dataset"] in datasets and r["method"] in methods and rep in reps and \
                        (e is None or e in epsilons):
                    grid_rows.append((r["dataset"], r["method"], e, r["grid_point"], rep,
                                      float(r["value"])))
        log(f"read {gfile}: {len(grid_rows)} grid rows so far")
    if args.from_grid:
        reps = sorted({row[4] for row in grid_rows})

    for ds in datasets:
        data = np.loadtxt(os.path.join(args.splits, files[ds]), delimiter=",", skiprows=1)
        y_all, X_all = data[:, 0], data[:, 1:]
        for m in methods:
            if m in ("PHIST", "APHIST", "DECONV"):
                for e in epsilons:
                    cannot.append((ds, m, e, NOT_IN_REPO.format(m=m)))
        for rep in ([] if args.from_grid else reps):
            idx = {p: np.array(parts[(ds, rep, p)]) for p in ("public", "private", "test")}
            Xp, yp = X_all[idx["public"]], y_all[idx["public"]]
            Xt, yt = X_all[idx["private"]], y_all[idx["private"]]
            Xs, ys = X_all[idx["test"]], y_all[idx["test"]]
            t_rep = time.time()
            if "DT" in methods:
                for depth in DT_DEPTHS:
                    pred = DecisionTreeRegressor(max_depth=depth).fit(Xt, yt).predict(Xs)
                    grid_rows.append((ds, "DT", None, f"max_depth={depth}", rep,
                                      float(np.mean((pred - ys) ** 2))))
            for m in (mm for mm in methods if mm in SPLITTER):
                n_full = 0
                for depth in DEPTHS:
                    seen = {}  # tree key -> {(eps, rho): mse}
                    for leaf in MIN_LEAF:
                        values, key = {}, None
                        for e in epsilons:
                            for rho in RHO:
                                if key is not None and key in seen:
                                    values[(e, rho)] = seen[key][(e, rho)]
                                    continue
                                t0 = time.time()
                                model = LPDTreeRegressor(
                                    splitter=SPLITTER[m], estimator="random_permutation",
                                    epsilon=e, proportion_budget=rho, max_depth=depth,
                                    min_samples_leaf=leaf, min_samples_split=2,
                                    public_X=Xp, public_Y=yp)
                                pred = model.fit(Xt, yt).predict(Xs)
                                fit_seconds[(ds, m)].append(time.time() - t0)
                                n_full += 1
                                values[(e, rho)] = float(np.mean((pred - ys) ** 2))
                                if key is None:
                                    tr = model.tree_
                                    key = (tuple(tr.feature), tuple(tr.threshold),
                                           tuple(tr.left_child), tuple(tr.right_child))
                                    if args.no_reuse:
                                        key = ("no-reuse", leaf)
                                    if key in seen and seen[key][(e, rho)] != values[(e, rho)]:
                                        sys.exit(f"reuse check failed: {ds} {m} rep {rep} "
                                                 f"depth {depth} leaf {leaf}")
                        seen.setdefault(key, values)
                        for (e, rho), v in values.items():
                            gp = f"max_depth={depth};min_samples_leaf={leaf};proportion_budget={rho}"
                            grid_rows.append((ds, m, e, gp, rep, v))
                log(f"{ds} {m} rep {rep}: {n_full} full fits of {len(DEPTHS) * len(MIN_LEAF) * len(epsilons) * len(RHO)}")
            log(f"{ds} rep {rep} done in {time.time() - t_rep:.1f} s")

    # grid file
    with open(args.grid_out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["dataset", "method", "epsilon", "grid_point", "repetition", "metric", "value"])
        for ds, m, e, gp, rep, v in grid_rows:
            w.writerow([ds, m, "" if e is None else fmt_eps(e), gp, rep, "mse", repr(v)])

    # oracle selection: lowest mean over the repetitions, first in grid order on ties
    cells = defaultdict(lambda: defaultdict(dict))  # (ds, m, e) -> gp -> rep -> value
    for ds, m, e, gp, rep, v in grid_rows:
        cells[(ds, m, e)][gp][rep] = v
    selected = []
    for (ds, m, e), by_gp in cells.items():
        best_gp = min(by_gp, key=lambda g: np.mean(list(by_gp[g].values())))  # min keeps first
        for rep in sorted(by_gp[best_gp]):
            selected.append((ds, m, e, rep, best_gp, by_gp[best_gp][rep], ""))
    for ds, m, e, note in cannot:
        selected.append((ds, m, e, None, "", None, note))
    order = {m: i for i, m in enumerate(ALL_METHODS)}
    selected.sort(key=lambda r: (r[0], order[r[1]], -1 if r[2] is None else r[2], r[3] or 0))

    head = subprocess.run(["git", "-C", args.lpdt_src, "rev-parse", "HEAD"],
                          capture_output=True, text=True).stdout.strip() or "unknown"
    sha = hashlib.sha256(open(os.path.join(args.splits, "splits.csv"), "rb").read()).hexdigest()
    secs = [s for v in fit_seconds.values() for s in v]
    with open(args.out, "w", newline="") as f:
        f.write(f"# The authors' code: GitHub Karlmyh/LPDT at commit {head} (LPDTreeRegressor, "
                f"random_state=666 reseeded at every fit, label range from the private training "
                f"labels, as written); DT: scikit-learn DecisionTreeRegressor(max_depth).\n")
        f.write(f"# Command: python {shlex.join(sys.argv)}\n")
        f.write(f"# Splits: {args.splits} (spec {meta['spec']}, seed {meta['seed']}, scaling "
                f"{meta['scaling']}, splits.csv sha256 {sha}); repetitions run: "
                f"{','.join(map(str, reps))} ({len(reps)}).\n")
        f.write("# Selection: the oracle of the paper's tables: per (dataset, method, epsilon) "
                "the grid point with the lowest mean test MSE over these repetitions (first in "
                "grid order on ties), then its test MSE at every repetition.\n")
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        if args.from_grid:
            f.write(f"# Date: {now}; merged from the grid files of runs over disjoint --reps "
                    f"chunks, each written by this script.\n")
        else:
            f.write(f"# Date: {now}; {len(secs)} full LPDT fits, median {np.median(secs) if secs else float('nan'):.4f} s "
                    f"per fit + predict; wall time {time.time() - t_start:.0f} s.\n")
        for note in args.note:
            f.write(f"# {note}\n")
        w = csv.writer(f)
        w.writerow(["dataset", "method", "epsilon", "repetition", "grid_point", "value", "note"])
        for ds, m, e, rep, gp, v, note in selected:
            w.writerow([ds, m, "" if e is None else fmt_eps(e), "" if rep is None else rep, gp,
                        "" if v is None else repr(v), note])
    for (ds, m), s in fit_seconds.items():
        log(f"seconds per full fit, {ds} {m}: median {np.median(s):.4f}, n {len(s)}")
    log(f"wrote {args.out} and {args.grid_out}; wall time {time.time() - t_start:.0f} s")


if __name__ == "__main__":
    main()
