#!/usr/bin/env python3
"""Run the authors' code of the LPCT paper (GitHub Karlmyh/LPCT) for its Table 2 on our splits,
and write the grid and the oracle-selected cells for `dp-repro check`.

What runs (the functions of their realdata.py, re-driven here on our rows; their modules are
imported from the checkout given as --lpct-src, nothing of theirs is copied):

  our label             their realdata.py function   their estimator and grid
  CT-W                  base_train_CT                sklearn DecisionTreeClassifier on private
                                                     + public rows, max_depth in
                                                     {1..8,10,12,14,16}
  CT-Q                  base_train_CT_pub            the same on the public rows only
  LPCT(Maxedge)         base_train_LPCT_M            LDPCP.LDPTreeClassifier, splitter
                                                     "igmaxedge", estimator "laplace",
                                                     min_samples_split 1, max_depth as CT,
                                                     min_samples_leaf 2^i for
                                                     i < int(log2(n_P) - 1), lamda in
                                                     {0.01, 0.1, 0.5, 1, 2, 5, 10, 50, 100,
                                                     200, 300, 400, 500, 750, 1000}
  LPCT(CART)            base_train_LPCT_V            the same with splitter "igreduction"
  LPDT                  base_train_LPCT_original     the same as LPCT(Maxedge) with lamda 0
  LPCT-prune(Maxedge)   base_train_LPCT_prune        if_prune 1, min_samples_leaf {1, 5},
                                                     the class defaults otherwise (max_depth 2,
                                                     lamda None: the data-driven lambda)
  LPCT-prune(CART)      base_train_LPCT_prune_V      the same with "igreduction"
  PHIST                 base_train_PHIST             comparison.PHIST.LDPHistogram, num_cell
                                                     1..6, skipped (NaN) when
                                                     d log h > 30 log 2 or d >= 32
  PGLM                  base_train_PGLM              comparison.PGLM.LDPGLM(X_Q, epsilon)
  PSGD-L                base_train_PSGD_L            comparison.PSGD.train_linear, lr in
                                                     {1e-5, 1e-3, 0.1, 1}, torch seed = the
                                                     0-based repetition, as theirs
  PSGD-N                base_train_PSGD_N            comparison.PSGD.train_nn, the same lr grid,
                                                     hidden_dim_ratio 1 (their only width)

Data: our splits (`dp-repro splits specs/lpct/table2.yaml`): per repetition the public rows give
X_Q, y_Q, a MinMaxScaler fitted on X_Q is applied to all parts (splits.json scaling "public",
as realdata.py does), the private rows are the training set X_P, y_P, the test rows the test set.
Test metric: accuracy as a fraction, as realdata.py logs it.

One saving, exact: LDPTreeClassifier.fit grows the partition on the public data alone
(get_partition; both splitters are deterministic: no random draw), then attribute_data draws
the Laplace noise of the private rows and sets each leaf's estimate. The partition does not
depend on epsilon, lamda or the private rows, so it is grown once per (splitter, max_depth,
min_samples_leaf) and data set; each grid point and repetition then sets epsilon and lamda
on the tree and its leaf estimators and calls their attribute_data and predict, with fresh
noise per fit as their loop has. --self-check compares this path with a fresh
LDPTreeClassifier(...).fit under the same numpy seed (identical predictions expected).

Randomness: their script seeds nothing but torch (and PHIST seeds numpy with 1 inside fit).
Here numpy's global stream is seeded per (data set, method, epsilon, repetition) from --seed,
so a run can be repeated; the noise is otherwise drawn by their code as in theirs.

Selection (their summarize.ipynb): per (data set, method, epsilon), the mean accuracy over
repetitions of every grid point, the grid point with the largest mean (the first in grid
order on a tie); the selected file gives that grid point's accuracy at every repetition.

The grid file (--grid-out) is appended to with --append, so parts can be run separately; the
selected file (--out) is always recomputed from the whole grid file.

    git clone https://github.com/Karlmyh/LPCT ../LPCT && git -C ../LPCT checkout 7f81694
    dp-repro splits specs/lpct/table2.yaml --out SPLITS --reps 10
    python scripts/authors-lpct.py --splits SPLITS --lpct-src ../LPCT \\
        --grid-out lpct-grid.csv --out specs/reported/lpct-authors-code.csv \\
        [--datasets Employ Rice] [--methods "LPCT(CART)" CT-Q] [--epsilons 0.5 2 8] [--reps 3]

Needs numpy, pandas, scipy, scikit-learn, numba (and torch for PSGD-L/N).
"""
import argparse
import contextlib
import datetime
import hashlib
import io
import json
import math
import os
import shlex
import subprocess
import sys
import time
import zlib
from itertools import product

import numpy as np
import pandas as pd

LPCT_METHODS = {"LPCT(Maxedge)": "igmaxedge", "LPCT(CART)": "igreduction", "LPDT": "igmaxedge"}
PRUNE_METHODS = {"LPCT-prune(Maxedge)": "igmaxedge", "LPCT-prune(CART)": "igreduction"}
NON_PRIVATE = ["CT-W", "CT-Q"]
ALL_METHODS = (NON_PRIVATE + list(LPCT_METHODS) + list(PRUNE_METHODS)
               + ["PHIST", "PGLM", "PSGD-L", "PSGD-N"])
DEPTHS = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16]
LAMDAS = [0.01, 0.1, 0.5, 1, 2, 5, 10, 50, 100, 200, 300, 400, 500, 750, 1000]
PSGD_LR = [1e-5, 1e-3, 1e-1, 1]
GRID_COLUMNS = ["dataset", "method", "epsilon", "grid_point", "repetition", "metric", "value"]


def log(*a):
    print(datetime.datetime.now().strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def fmt_eps(e):
    return "" if e is None else ("%g" % e)


def gp(**kw):
    return ";".join(f"{k}={v}" for k, v in kw.items())


def min_leaf_grid(n_P):
    # realdata.py: [2**i for i in range(int(np.log2(n_P) - 1))]
    return [2 ** i for i in range(int(np.log2(n_P) - 1))]


def seed_for(*parts):
    return zlib.crc32("|".join(map(str, parts)).encode()) & 0x7FFFFFFF


class Split:
    """One repetition's public / private / test rows, MinMax fitted on the public X."""

    def __init__(self, data, rows, MinMaxScaler):
        scaler = MinMaxScaler().fit(data[rows["public"], 1:])
        part = lambda p: (scaler.transform(data[rows[p], 1:]), data[rows[p], 0])
        self.X_Q, self.y_Q = part("public")
        self.X_P, self.y_P = part("private")
        self.X_test, self.y_test = part("test")
        self.public_key = hashlib.sha1(np.ascontiguousarray(rows["public"])).hexdigest()


class Runner:
    def __init__(self, args, grid_file):
        sys.path.insert(0, args.lpct_src)
        from sklearn.preprocessing import MinMaxScaler
        from sklearn.tree import DecisionTreeClassifier
        from LDPCP import LDPTreeClassifier
        from comparison.PHIST import LDPHistogram
        from comparison.PGLM import LDPGLM
        self.MinMaxScaler, self.DTC = MinMaxScaler, DecisionTreeClassifier
        self.LDPTreeClassifier, self.LDPHistogram, self.LDPGLM = LDPTreeClassifier, LDPHistogram, LDPGLM
        self.args, self.grid_file = args, grid_file
        self.partitions = {}
        self.timing = []  # (dataset, method, epsilon, repetition, fits, seconds)

    # ---- output -------------------------------------------------------------------------
    def emit(self, ds, method, eps, grid_point, rep, acc):
        self.grid_file.write(",".join([ds, method, fmt_eps(eps), grid_point, str(rep), "accuracy",
                                       repr(float(acc))]) + "\n")

    # ---- methods ------------------------------------------------------------------------
    def ct(self, ds, method, sp, rep):
        if method == "CT-W":
            X = np.concatenate([sp.X_P, sp.X_Q]); y = np.concatenate([sp.y_P, sp.y_Q])
        else:
            X, y = sp.X_Q, sp.y_Q
        for depth in DEPTHS:
            model = self.DTC(max_depth=depth).fit(X, y)
            self.emit(ds, method, None, gp(max_depth=depth), rep,
                      (model.predict(sp.X_test) == sp.y_test).mean())
        return len(DEPTHS)

    def partition(self, sp, splitter, depth, min_leaf):
        """LDPTreeClassifier with its partition grown on the public rows (their get_partition)."""
        key = (sp.public_key, splitter, depth, min_leaf)
        if key not in self.partitions:
            model = self.LDPTreeClassifier(min_samples_split=1, min_samples_leaf=min_leaf,
                                           max_depth=depth, lamda=1.0, X_Q=sp.X_Q, y_Q=sp.y_Q,
                                           epsilon=1.0, splitter=splitter, estimator="laplace")
            model.get_partition(model.X_Q, model.y_Q, model.range_x)
            self.partitions[key] = model
        return self.partitions[key]

    @staticmethod
    def set_budget(model, epsilon, lamda):
        """Set epsilon and lamda on a grown tree, as a new LDPTreeClassifier(epsilon, lamda) would
        pass them to each leaf estimator (whose Laplace scale is proportional to 1/epsilon)."""
        model.epsilon, model.lamda = epsilon, lamda
        model.builder.epsilon, model.builder.lamda = epsilon, lamda
        for leaf in model.tree_.leafnode_fun.values():
            leaf.noise_level = leaf.noise_level * leaf.epsilon / epsilon
            leaf.epsilon, leaf.lamda = epsilon, lamda

    def lpct(self, ds, method, eps, sp, rep):
        splitter = LPCT_METHODS[method]
        lamdas = [0] if method == "LPDT" else LAMDAS
        fits = 0
        for depth, min_leaf in product(DEPTHS, min_leaf_grid(len(sp.y_P))):
            model = self.partition(sp, splitter, depth, min_leaf)
            for lamda in lamdas:
                self.set_budget(model, eps, lamda)
                model.attribute_data(sp.X_P, sp.y_P)
                acc = (model.predict(sp.X_test) == sp.y_test).mean()
                self.emit(ds, method, eps, gp(max_depth=depth, min_samples_leaf=min_leaf,
                                              lamda=lamda), rep, acc)
                fits += 1
        return fits

    def prune(self, ds, method, eps, sp, rep):
        for min_leaf in [1, 5]:
            model = self.LDPTreeClassifier(min_samples_split=1, min_samples_leaf=min_leaf,
                                           if_prune=1, X_Q=sp.X_Q, y_Q=sp.y_Q, epsilon=eps,
                                           splitter=PRUNE_METHODS[method], estimator="laplace")
            model.fit(sp.X_P, sp.y_P)
            self.emit(ds, method, eps, gp(min_samples_leaf=min_leaf), rep,
                      (model.predict(sp.X_test) == sp.y_test).mean())
        return 2

    def phist(self, ds, method, eps, sp, rep):
        d = sp.X_P.shape[1]
        fits = 0
        for h in range(1, 7):
            if d * np.log(h) <= 30 * np.log(2) and d < 32:  # their guard in base_train_PHIST
                model = self.LDPHistogram(num_cell=h, epsilon=eps).fit(sp.X_P, sp.y_P)
                acc = (model.predict(sp.X_test) == sp.y_test).mean()
                fits += 1
            else:
                acc = float("nan")  # their log line for a skipped h
            self.emit(ds, method, eps, gp(num_cell=h), rep, acc)
        return fits

    def pglm(self, ds, method, eps, sp, rep):
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # their fit prints every Newton step
                model = self.LDPGLM(X_Q=sp.X_Q, epsilon=eps).fit(sp.X_P, sp.y_P)
                acc = (model.predict(sp.X_test) == sp.y_test).mean()
        except Exception as e:  # realdata.py logs NaN on any error
            log(f"  PGLM error: {e!r}")
            acc = float("nan")
        self.emit(ds, method, eps, "default", rep, acc)
        return 1

    def psgd(self, ds, method, eps, sp, rep):
        import torch
        from comparison.PSGD import train_linear, train_nn
        torch.manual_seed(rep - 1)  # their iterate is 0-based
        X_test = torch.tensor(sp.X_test, dtype=torch.double)
        for lr in PSGD_LR:
            kw = dict(epsilon=eps, X_P=sp.X_P, y_P=sp.y_P, X_Q=sp.X_Q, y_Q=sp.y_Q, lr=lr)
            if method == "PSGD-L":
                _, model = train_linear(**kw)
                point = gp(lr=lr)
            else:
                _, model = train_nn(hidden_dim_ratio=1, **kw)
                point = gp(lr=lr, hidden_dim_ratio=1)
            eta = model(X_test).detach().numpy().ravel()
            self.emit(ds, method, eps, point, rep, ((eta > 0.5).astype(int) == sp.y_test).mean())
        return len(PSGD_LR)

    def run_one(self, ds, method, eps, sp, rep):
        np.random.seed(seed_for(self.args.seed, ds, method, fmt_eps(eps), rep))
        t0 = time.time()
        if method in NON_PRIVATE:
            fits = self.ct(ds, method, sp, rep)
        elif method in LPCT_METHODS:
            fits = self.lpct(ds, method, eps, sp, rep)
        elif method in PRUNE_METHODS:
            fits = self.prune(ds, method, eps, sp, rep)
        elif method == "PHIST":
            fits = self.phist(ds, method, eps, sp, rep)
        elif method == "PGLM":
            fits = self.pglm(ds, method, eps, sp, rep)
        else:
            fits = self.psgd(ds, method, eps, sp, rep)
        sec = time.time() - t0
        self.timing.append((ds, method, fmt_eps(eps), rep, fits, sec))
        self.grid_file.flush()
        log(f"  {ds} {method} eps={fmt_eps(eps) or '-'} rep {rep}: {fits} fits, {sec:.1f} s")

    def self_check(self, sp):
        """Fresh fit vs the grown-once partition path, same numpy seed: predictions must agree."""
        for splitter, depth, min_leaf, lamda, eps in [("igmaxedge", 6, 2, 5, 2.0),
                                                      ("igreduction", 8, 4, 0.5, 0.5),
                                                      ("igmaxedge", 10, 1, 0, 8.0)]:
            np.random.seed(123)
            fresh = self.LDPTreeClassifier(min_samples_split=1, min_samples_leaf=min_leaf,
                                           max_depth=depth, lamda=lamda, X_Q=sp.X_Q,
                                           y_Q=sp.y_Q, epsilon=eps, splitter=splitter,
                                           estimator="laplace").fit(sp.X_P, sp.y_P)
            a = fresh.predict(sp.X_test)
            model = self.partition(sp, splitter, depth, min_leaf)
            self.set_budget(model, 3.0, 1.0)  # something else first
            self.set_budget(model, eps, lamda)
            np.random.seed(123)
            model.attribute_data(sp.X_P, sp.y_P)
            b = model.predict(sp.X_test)
            ok = np.array_equal(a, b)
            log(f"  self-check {splitter} depth={depth} min_leaf={min_leaf} lamda={lamda} "
                f"eps={eps}: {'identical' if ok else 'DIFFERENT'} predictions")
            if not ok:
                sys.exit("self-check failed")


def select(grid):
    """Oracle: per (dataset, method, epsilon) the grid point with the best mean accuracy."""
    rows = []
    grid = grid.copy()
    grid["order"] = range(len(grid))
    for (ds, method, eps), g in grid.groupby(["dataset", "method", "epsilon"], sort=False,
                                             dropna=False):
        means = g.groupby("grid_point", sort=False)["value"].mean()
        if means.notna().sum() == 0:
            continue
        best = means.idxmax()  # first maximum in grid order
        for _, r in g[g.grid_point == best].sort_values("repetition").iterrows():
            rows.append([ds, method, r.epsilon, int(r.repetition), best, repr(float(r.value)), ""])
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--splits", required=True, help="output folder of `dp-repro splits`")
    ap.add_argument("--lpct-src", required=True, help="a checkout of Karlmyh/LPCT (7f81694)")
    ap.add_argument("--out", required=True, help="selected file (one row per repetition)")
    ap.add_argument("--grid-out", required=True, help="tidy grid file (keep outside the repo)")
    ap.add_argument("--append", action="store_true", help="append to --grid-out")
    ap.add_argument("--datasets", nargs="*", help="our data set names (default: all)")
    ap.add_argument("--methods", nargs="*", help=f"our labels (default: {' '.join(ALL_METHODS)})")
    ap.add_argument("--epsilons", nargs="*", type=float, default=[0.5, 2, 8])
    ap.add_argument("--reps", type=int, default=3, help="repetitions 1..REPS of the splits")
    ap.add_argument("--first-rep", type=int, default=1,
                    help="start at this repetition (to add repetitions FIRST..REPS with --append)")
    ap.add_argument("--seed", type=int, default=2024, help="seeds numpy per cell and repetition")
    ap.add_argument("--self-check", action="store_true",
                    help="first check the grown-once partition path against a fresh fit")
    ap.add_argument("--cannot-run", action="append", default=[],
                    help="DATASET|METHOD|EPS|reason: a cell to write as 'cannot run' (repeatable)")
    ap.add_argument("--select-only", action="store_true",
                    help="run nothing: only rewrite --out from the existing --grid-out")
    ap.add_argument("--note", action="append", default=[],
                    help="an extra comment line for --out (repeatable), e.g. the commands of "
                         "the parts that filled the grid file")
    args = ap.parse_args()

    info = json.load(open(os.path.join(args.splits, "splits.json")))
    datasets = args.datasets or [d["name"] for d in info["datasets"]]
    methods = args.methods or ALL_METHODS
    unknown = set(methods) - set(ALL_METHODS)
    if unknown:
        ap.error(f"unknown methods {sorted(unknown)}")
    if args.reps > info["repetitions"]:
        ap.error(f"the splits hold {info['repetitions']} repetitions")
    assert info["scaling"] == "public", "expected scaling 'public' (MinMax on the public X)"

    if not args.select_only:
        run(args, info, datasets, methods)
    write_selected(args, info)


def run(args, info, datasets, methods):
    new = not (args.append and os.path.exists(args.grid_out))
    grid_file = open(args.grid_out, "w" if new else "a")
    if new:
        grid_file.write(",".join(GRID_COLUMNS) + "\n")
    runner = Runner(args, grid_file)
    splits = pd.read_csv(os.path.join(args.splits, "splits.csv"))
    t_start = time.time()
    for ds in datasets:
        meta = next(d for d in info["datasets"] if d["name"] == ds)
        data = pd.read_csv(os.path.join(args.splits, meta["file"])).to_numpy(dtype=float)
        for rep in range(args.first_rep, args.reps + 1):
            s = splits[(splits.dataset == ds) & (splits.repetition == rep)]
            rows = {p: s[s.part == p].row.to_numpy() for p in ["public", "private", "test"]}
            sp = Split(data, rows, runner.MinMaxScaler)
            log(f"{ds} rep {rep}: n_Q={len(sp.y_Q)} n_P={len(sp.y_P)} n_test={len(sp.y_test)} "
                f"d={sp.X_P.shape[1]}")
            if args.self_check and rep == args.first_rep:
                runner.self_check(sp)
            for method in methods:
                for eps in ([None] if method in NON_PRIVATE else args.epsilons):
                    runner.run_one(ds, method, eps, sp, rep)
    grid_file.close()
    log(f"done in {time.time() - t_start:.0f} s")
    timing_path = args.grid_out.rsplit(".", 1)[0] + "-timing.csv"
    pd.DataFrame(runner.timing, columns=["dataset", "method", "epsilon", "repetition", "fits",
                                         "seconds"]).to_csv(
        timing_path, mode="a" if not new else "w", header=new, index=False)


def write_selected(args, info):
    """The selected file, from the whole grid file."""
    grid = pd.read_csv(args.grid_out, dtype={"epsilon": str, "grid_point": str})
    grid["epsilon"] = grid["epsilon"].fillna("")
    reps_run = grid.groupby(["dataset", "method", "epsilon"]).repetition.nunique()
    rows = select(grid)
    for spec in args.cannot_run:
        ds, method, eps, reason = spec.split("|", 3)
        rows.append([ds, method, eps, "", "", "", f"cannot run: {reason}"])
    commit = subprocess.run(["git", "-C", args.lpct_src, "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    sha = hashlib.sha256(open(os.path.join(args.splits, "splits.csv"), "rb").read()).hexdigest()
    header = [
        f"authors' code: https://github.com/Karlmyh/LPCT at commit {commit} (V1, realdata.py's "
        f"functions re-driven on our splits by scripts/authors-lpct.py)",
        "command: python3 " + shlex.join(sys.argv),
        f"splits: spec {info['spec']}, seed {info['seed']}, scaling {info['scaling']}, "
        f"splits.csv sha256 {sha}",
        "selection: oracle as their summarize.ipynb: per (dataset, method, epsilon) the grid "
        "point with the largest mean test accuracy over the repetitions run; its accuracy at "
        "each repetition",
        "repetitions run (1..N of the splits): " + "; ".join(
            f"N = {n} for {len(g)} cells of " + ", ".join(sorted(set(g.index.get_level_values(1))))
            for n, g in reps_run.groupby(reps_run)),
    ] + args.note + [
        f"written {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
    ]
    with open(args.out, "w") as f:
        for h in header:
            f.write("# " + h + "\n")
        pd.DataFrame(rows, columns=["dataset", "method", "epsilon", "repetition", "grid_point",
                                    "value", "note"]).to_csv(f, index=False)
    log(f"wrote {args.out} ({len(rows)} rows) and {args.grid_out}")


if __name__ == "__main__":
    main()
