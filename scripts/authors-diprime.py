#!/usr/bin/env python3
"""Test MSE (DiPriMe paper Table 1) and test accuracy (Table 2) of the authors' own forests
(GitHub shoryaconsul/DiPriMeFlip_Forest) on OUR splits, so that `dp-repro check` can set the
paper's value, the authors' code's value and ours side by side.

It runs, per data set and repetition, the calls of the authors' notebook
Notebooks/MedianTree_UCI.ipynb (card docs/methods/diprime.md §6.3, §6.4), on the public-free
90/10 splits that `dp-repro splits` wrote (private rows = training rows, test rows = test rows):

  RF           sklearn RandomForest{Regressor,Classifier}(10, max_depth=d_full,
               min_samples_leaf=5, max_features=K)
  ERT          sklearn ExtraTrees{Regressor,Classifier}, the same arguments
  Median       DiPrimeForest / DiPrimeCForest(n_trees=10, max_depth=d_full, max_features=K,
               partition=False), fitted without eps
  DP-RF        Baselines/dprf_Reg.py DPRF_Reg (regression, eps=10) or Baselines/dprf.py DPRF
               (classification, eps=2), max_depth=d_mult, on the 5-bin features
  DP-DF        Baselines/DP_DF DP_SysFor(max_height=d_mult, num_trees=10, epsilon_budget=1.0,
               pruning on except Banknote), on the 5-bin features (Table 2 only)
  DiPriMe      DiPrimeForest / DiPrimeCForest(10, max_depth=d_part, max_features=1), eps, b_med=0.5
  DiPriMeExp   the same class with max_features=K
  DiPriMeFlip  DiPrimeFlipForest / DiPrimeFlipCForest(10, max_depth=d_part, max_features=K)
  DP-ERT       Classes/RandForest_DP*.py DPRandForest / DPRandCForest(10, max_depth=d_full,
               max_features=1), called with 2 eps (Table 1: 20, Table 2: 4)

with eps = 10 (Table 1) or 2 (Table 2) as in our specs, K = 5 (4 on Banknote's 4 features),
the notebook's depth rule (its own tree_depth cell, occupancy 25, 10 on Banknote), attribute
ranges (its own gen_attdict cell) from all rows, and its 5-bin discretisation
(pandas.cut(bins=5) of every non-categorical column over all rows; Credit Card keeps SEX,
EDUCATION, MARRIAGE and PAY_0..PAY_6 as they are). The metric is the notebook's: MSE
sum((y - yhat)^2)/n, and for classification 1 - mean|y - yhat|, where yhat is the 0/1
prediction (Median and the DiPriMe variants threshold the forest mean at 0.5) except for DP-ERT,
whose forest mean is used as it is (the notebook's "soft" accuracy, card §4.3). The targets in
our data files are already rescaled to [0, 1] as the notebook does, and bound [0, 1] is passed.

The notebook's functions gen_attdict and tree_depth are executed from the notebook's own cells and
the forests imported from the checkout's Classes and Baselines folders: nothing of the authors'
code is copied here. Two run-time adaptations to current libraries, without touching their
files: scipy.stats.mode is called with keepdims=True inside dprf/dprf_Reg (its default changed
in scipy 1.11), and DP_DF is imported as a package from Baselines as the notebook does.

There is no grid: each method runs at its one fixed parameter set (the grid point), so the
selection is trivial. Every fit is seeded (numpy and Python random) from --seed, the data set,
the repetition and the method. Rows are appended to --grid-out as they finish (a killed run
keeps what it did; --skip-done resumes); the selected file --out is rebuilt from the grid file
at the end (or alone, with --only-select).

Needs numpy, scipy, pandas, scikit-learn and a checkout of shoryaconsul/DiPriMeFlip_Forest.

    python scripts/authors-diprime.py --src DIR --splits DIR --grid-out FILE --out FILE \\
        [--datasets LIST] [--methods LIST] [--epsilons LIST] [--reps N] \\
        [--reps-per-dataset name=N,...] [--skip-done] [--only-select]
"""
import argparse
import csv
import datetime
import hashlib
import json
import math
import os
import random
import shlex
import subprocess
import sys
import time
import warnings
import zlib

import numpy as np
import pandas as pd

TABLE1_METHODS = ["RF", "ERT", "Median", "DP-RF", "DP-ERT", "DiPriMe", "DiPriMeExp",
                  "DiPriMeFlip"]
TABLE2_METHODS = ["DP-DF", "DP-RF", "RF", "ERT", "Median", "DiPriMe", "DiPriMeExp",
                  "DiPriMeFlip", "DP-ERT"]
NON_PRIVATE = {"RF", "ERT", "Median"}
# Credit Card columns the notebook leaves unbinned for DP-RF / DP-DF (0-based: SEX,
# EDUCATION, MARRIAGE, PAY_0, PAY_2..PAY_6).
CREDIT_UNBINNED = [1, 2, 3, 5, 6, 7, 8, 9, 10]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--src", required=True, help="a checkout of shoryaconsul/DiPriMeFlip_Forest")
    p.add_argument("--splits", required=True,
                   help="folder written by `dp-repro splits` (diprime-table1 or diprime-table2)")
    p.add_argument("--grid-out", required=True, help="tidy grid file (appended to)")
    p.add_argument("--out", required=True, help="selected file for `dp-repro check`")
    p.add_argument("--manifests", default=os.path.join(os.path.dirname(__file__), "..", "datasets"),
                   help="folder of the data-set manifests (leaf_occupancy); default ../datasets")
    p.add_argument("--datasets", help="comma-separated subset of the splits' data sets")
    p.add_argument("--methods", help="comma-separated subset of " + ",".join(TABLE2_METHODS))
    p.add_argument("--epsilons", help="comma-separated; the spec's epsilon only (10 or 2)")
    p.add_argument("--reps", type=int, help="first N repetitions (default: all in the splits)")
    p.add_argument("--reps-per-dataset", default="",
                   help="per data set overrides of --reps, e.g. traffic=3,credit_default=3")
    p.add_argument("--seed", type=int, default=10, help="base seed (the notebook's is 10)")
    p.add_argument("--skip-done", action="store_true",
                   help="skip (dataset, method, repetition) already in --grid-out")
    p.add_argument("--only-select", action="store_true",
                   help="only rebuild --out from --grid-out")
    p.add_argument("--note", action="append", default=[],
                   help="extra '# ' comment line for --out (repeatable)")
    return p.parse_args()


def log(msg):
    print(f"[{datetime.datetime.utcnow():%H:%M:%S}] {msg}", file=sys.stderr, flush=True)


def load_authors(src):
    """Import the authors' classes and execute the notebook's gen_attdict and tree_depth cells."""
    sys.path.insert(0, os.path.join(src, "Classes"))
    sys.path.insert(0, os.path.join(src, "Baselines"))
    import scipy.stats
    import DiPrime, DiPrime_Class, DiPrimeFlip, DiPrimeFlip_Class  # noqa: E401
    import RandForest_DP, RandForest_DP_Class  # noqa: E401
    import dprf, dprf_Reg  # noqa: E401
    from DP_DF.DP_SysFor import DP_SysFor

    def mode_keepdims(a, axis=0):  # scipy >= 1.11 dropped the kept axis by default
        return scipy.stats.mode(a, axis=axis, keepdims=True)
    dprf.mode = mode_keepdims
    dprf_Reg.mode = mode_keepdims

    notebook = json.load(open(os.path.join(src, "Notebooks", "MedianTree_UCI.ipynb")))
    nb_namespace = {"np": np}
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and ("def gen_attdict" in source
                                            or "def tree_depth" in source):
            exec(source, nb_namespace)
    return dict(
        DiPrimeForest=DiPrime.DiPrimeForest, DiPrimeCForest=DiPrime_Class.DiPrimeCForest,
        DiPrimeFlipForest=DiPrimeFlip.DiPrimeFlipForest,
        DiPrimeFlipCForest=DiPrimeFlip_Class.DiPrimeFlipCForest,
        DPRandForest=RandForest_DP.DPRandForest, DPRandCForest=RandForest_DP_Class.DPRandCForest,
        DPRF=dprf.DPRF, DPRF_Reg=dprf_Reg.DPRF_Reg, DP_SysFor=DP_SysFor,
        gen_attdict=nb_namespace["gen_attdict"], tree_depth=nb_namespace["tree_depth"])


def occupancy(manifests, name):
    path = os.path.join(manifests, f"{name}.yaml")
    for line in open(path):
        if line.startswith("leaf_occupancy:"):
            return int(line.split(":")[1].split("#")[0])
    raise SystemExit(f"no leaf_occupancy in {path}")


def binned(X, cat_idx, name):
    """The notebook's 5-bin features for DP-RF / DP-DF, over all rows."""
    keep = CREDIT_UNBINNED if name == "credit_default" else cat_idx
    out = np.empty_like(X, dtype=float)
    for j in range(X.shape[1]):
        out[:, j] = X[:, j] if j in keep else pd.cut(X[:, j], bins=5, labels=False)
    return out


def fit_seed(base, dataset, rep, method):
    return (base * 1_000_003 + zlib.crc32(f"{dataset}/{rep}/{method}".encode())) % (2**32)


def run_method(m, a, ctx, tr, te):
    """One fit + predict of method m; returns (metric value, grid point string)."""
    reg = ctx["task"] == "regression"
    X, y, Xc, cat_idx = ctx["X"], ctx["y"], ctx["Xcat"], ctx["cat_idx"]
    eps, K = ctx["eps"], ctx["K"]
    d_full, d_mult, d_part = ctx["d_full"], ctx["d_mult"], ctx["d_part"]
    A, Acat, bnds = ctx["A"], ctx["Acat"], np.array([0, 1])
    X_tr, X_te, y_tr, y_te = X[tr], X[te], y[tr], y[te]

    def score(pred):
        pred = np.asarray(pred, dtype=float)
        if reg:
            return float(np.sum((y_te - pred) ** 2 / len(y_te)))
        return float(1 - np.sum(np.abs(y_te - pred)) / len(y_te))

    if m in ("RF", "ERT"):
        from sklearn.ensemble import (ExtraTreesClassifier, ExtraTreesRegressor,
                                      RandomForestClassifier, RandomForestRegressor)
        cls = {("RF", True): RandomForestRegressor, ("RF", False): RandomForestClassifier,
               ("ERT", True): ExtraTreesRegressor, ("ERT", False): ExtraTreesClassifier}[m, reg]
        f = cls(n_estimators=10, max_depth=d_full, min_samples_leaf=5, max_features=K,
                random_state=ctx["seed"] % (2**31))
        f.fit(X_tr, y_tr)
        return score(f.predict(X_te)), \
            f"n_estimators=10;max_depth={d_full};min_samples_leaf=5;max_features={K}"
    if m == "Median":
        f = a["DiPrimeForest" if reg else "DiPrimeCForest"](
            n_trees=10, max_depth=d_full, max_features=K, partition=False)
        f.fit(X_tr, y_tr, A, cat_idx, bnds)
        p = f.predict(X_te, cat_idx)
        return score(p if reg else (p >= 0.5)), \
            f"n_trees=10;max_depth={d_full};max_features={K};partition=False"
    if m in ("DiPriMe", "DiPriMeExp", "DiPriMeFlip"):
        k = 1 if m == "DiPriMe" else K
        name = ("DiPrimeFlip" if m == "DiPriMeFlip" else "DiPrime") + \
            ("Forest" if reg else "CForest")
        f = a[name](n_trees=10, max_depth=d_part, max_features=k)
        f.fit(X_tr, y_tr, A, cat_idx, bnds, eps=eps, b_med=0.5)
        p = f.predict(X_te, cat_idx)
        return score(p if reg else (p >= 0.5)), \
            f"n_trees=10;max_depth={d_part};max_features={k};eps={eps:g};b_med=0.5;partition=True"
    if m == "DP-ERT":
        f = a["DPRandForest" if reg else "DPRandCForest"](
            n_trees=10, max_depth=d_full, max_features=1)
        f.fit(X_tr, y_tr, A, cat_idx, bnds, eps=2 * eps)
        return score(f.predict(X_te, cat_idx)), \
            f"n_trees=10;max_depth={d_full};max_features=1;eps={2 * eps:g};b_med=0.5"
    if m == "DP-RF":
        if reg:
            f = a["DPRF_Reg"](n_trees=10, max_depth=d_mult)
            f.fit(Xc[tr], y_tr, Acat, np.array([0, 1]), eps=eps)
            pred = f.predict(Xc[te])
        else:
            f = a["DPRF"](n_trees=10, max_depth=d_mult)
            f.fit(Xc[tr], y_tr, Acat, [0, 1], eps=eps)
            pred = f.predict(Xc[te], [0, 1])
        return score(pred), f"n_trees=10;max_depth={d_mult};eps={eps:g};bstrap=1"
    if m == "DP-DF":
        if reg:
            raise ValueError("DP-DF is a classifier (Table 2 only)")
        d = Xc.shape[1]
        records = [list(r) for r in np.column_stack([Xc[tr], y_tr])]
        prune = ctx["name"] != "banknote"
        f = a["DP_SysFor"](records=records, max_height=d_mult, target_attribute_index=d,
                           num_trees=10, epsilon_budget=1.0,
                           attribute_names=[f"x{j + 1}" for j in range(d)], pruning=prune)
        pred = f.classify_list([list(r) for r in Xc[te]])
        acc = 1 - sum(pred[i] != y_te[i] for i in range(len(y_te))) / len(y_te)
        return float(acc), f"num_trees=10;max_height={d_mult};epsilon_budget=1.0;pruning={prune}"
    raise ValueError(m)


def read_grid(path):
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return list(csv.DictReader(fh))


def write_selected(args, splits_meta, splits_sha, methods, datasets, src_commit):
    rows = read_grid(args.grid_out)
    metric = "mse" if splits_meta["task"] == "regression" else "accuracy"
    eps = splits_meta["eps"]
    out = []
    for ds in datasets:
        for m in methods:
            cell = [r for r in rows if r["dataset"] == ds and r["method"] == m
                    and r["metric"] == metric]
            fails = [r for r in rows if r["dataset"] == ds and r["method"] == m
                     and r["metric"] == "cannot_run"]
            e = "" if m in NON_PRIVATE else f"{eps:g}"
            if not cell:
                if fails:
                    out.append([ds, m, e, "", "", "", "cannot run: " + fails[-1]["value"]])
                continue
            # one grid point per method: the selection keeps it (best mean of one candidate)
            points = {r["grid_point"] for r in cell}
            best = min(points, key=lambda g: (1 if metric == "mse" else -1) * np.mean(
                [float(r["value"]) for r in cell if r["grid_point"] == g]))
            seen = {}
            for r in cell:
                if r["grid_point"] == best:
                    seen[int(r["repetition"])] = r  # the latest row of a repetition wins
            for rep in sorted(seen):
                out.append([ds, m, e, rep, best, seen[rep]["value"], ""])
    reps_done = {}
    for r in out:
        if r[3] != "":
            reps_done.setdefault(r[0], set()).add(r[3])
    now = datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")
    with open(args.out, "w", newline="") as fh:
        fh.write(f"# The authors' code: github.com/shoryaconsul/DiPriMeFlip_Forest at commit "
                 f"{src_commit} (Classes/, Baselines/, Notebooks/MedianTree_UCI.ipynb gen_attdict and tree_depth), "
                 f"called as that notebook calls each method.\n")
        fh.write("# Command: python3 " + shlex.join(sys.argv) + "\n")
        fh.write(f"# Splits: {args.splits} (spec {splits_meta['spec']}, seed {splits_meta['seed']}, "
                 f"splits.csv sha256 {splits_sha}); training = private rows, test = test rows; "
                 f"scaling {splits_meta['scaling']}.\n")
        fh.write("# Selection: none needed - each method runs at its one fixed parameter set "
                 "(the notebook's), so grid_point is that set and every repetition run is listed.\n")
        fh.write("# Repetitions run: " + "; ".join(
            f"{d} {len(v)}" for d, v in reps_done.items()) + f". Written {now}.\n")
        for n in args.note:
            fh.write(f"# {n}\n")
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["dataset", "method", "epsilon", "repetition", "grid_point", "value", "note"])
        w.writerows(out)
    log(f"wrote {args.out} ({len(out)} rows)")


def main():
    args = parse_args()
    warnings.filterwarnings("ignore")  # as the notebook does
    meta = json.load(open(os.path.join(args.splits, "splits.json")))
    splits_path = os.path.join(args.splits, "splits.csv")
    splits_sha = hashlib.sha256(open(splits_path, "rb").read()).hexdigest()
    tasks = {d["task"] for d in meta["datasets"]}
    assert len(tasks) == 1, tasks
    task = tasks.pop()
    table_eps = 10.0 if task == "regression" else 2.0
    meta.update(task=task, eps=table_eps)
    all_methods = TABLE1_METHODS if task == "regression" else TABLE2_METHODS
    methods = [m for m in all_methods if not args.methods or m in args.methods.split(",")]
    datasets = [d["name"] for d in meta["datasets"]
                if not args.datasets or d["name"] in args.datasets.split(",")]
    if args.epsilons and table_eps not in [float(e) for e in args.epsilons.split(",")]:
        methods = [m for m in methods if m in NON_PRIVATE]
    try:
        commit = subprocess.run(["git", "-C", args.src, "rev-parse", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except Exception:
        commit = "unknown"
    if args.only_select:
        write_selected(args, meta, splits_sha, methods, datasets, commit)
        return

    a = load_authors(args.src)
    splits = pd.read_csv(splits_path)
    per_ds = dict(kv.split("=") for kv in args.reps_per_dataset.split(",") if kv)
    done = set()
    if args.skip_done:
        done = {(r["dataset"], r["method"], r["repetition"]) for r in read_grid(args.grid_out)
                if r["metric"] != "seconds"}
    new = not os.path.exists(args.grid_out)
    grid = open(args.grid_out, "a", newline="")
    gw = csv.writer(grid, lineterminator="\n")
    if new:
        gw.writerow(["dataset", "method", "epsilon", "grid_point", "repetition", "metric",
                     "value"])
    metric = "mse" if task == "regression" else "accuracy"
    t_start = time.time()
    for dmeta in meta["datasets"]:
        name = dmeta["name"]
        if name not in datasets:
            continue
        data = pd.read_csv(os.path.join(args.splits, dmeta["file"])).to_numpy(dtype=float)
        y, X = data[:, 0], data[:, 1:]
        cat_idx = list(dmeta["categorical"])
        Xcat = binned(X, cat_idx, name)
        occ = occupancy(args.manifests, name)
        ctx = dict(name=name, task=task, X=X, y=y, Xcat=Xcat, cat_idx=cat_idx, eps=table_eps,
                   K=min(5, X.shape[1]), A=a["gen_attdict"](X, cat_idx),
                   Acat=a["gen_attdict"](Xcat, list(range(X.shape[1]))))
        sp = splits[splits.dataset == name]
        reps = sorted(sp.repetition.unique())
        n_reps = int(per_ds.get(name, args.reps or len(reps)))
        for rep in reps[:n_reps]:
            tr = sp[(sp.repetition == rep) & (sp.part == "private")].row.to_numpy()
            te = sp[(sp.repetition == rep) & (sp.part == "test")].row.to_numpy()
            n_tr = len(tr)
            ctx.update(d_full=a["tree_depth"](n_tr, occ),
                       d_mult=a["tree_depth"](n_tr, occ, num_bins=5),
                       d_part=a["tree_depth"](n_tr, occ, partition=True, num_trees=10))
            for m in methods:
                if (name, m, str(rep)) in done:
                    continue
                seed = fit_seed(args.seed, name, rep, m)
                np.random.seed(seed)
                random.seed(seed)
                ctx["seed"] = seed
                e = "" if m in NON_PRIVATE else f"{table_eps:g}"
                t0 = time.time()
                try:
                    value, gp = run_method(m, a, ctx, tr, te)
                except Exception as exc:  # noqa: BLE001 - record the crash as the cell's note
                    msg = f"{type(exc).__name__}: {exc}".replace("\n", " ")[:200]
                    log(f"{name} rep {rep} {m}: CRASH {msg}")
                    gw.writerow([name, m, e, "", rep, "cannot_run", msg])
                    grid.flush()
                    continue
                secs = time.time() - t0
                gw.writerow([name, m, e, gp, rep, metric, repr(value)])
                gw.writerow([name, m, e, gp, rep, "seconds", f"{secs:.3f}"])
                grid.flush()
                log(f"{name} rep {rep} {m}: {metric} {value:.6g} ({secs:.1f} s; "
                    f"total {time.time() - t_start:.0f} s)")
    grid.close()
    write_selected(args, meta, splits_sha, methods, datasets, commit)


if __name__ == "__main__":
    main()
