#!/usr/bin/env python3
"""Seconds of one fit + predict of the authors' LPDT-M (GitHub Karlmyh/LPDT: splitter
"msemaxedge", estimator "random_permutation") and of scikit-learn's
DecisionTreeRegressor(max_depth=4) on abalone, the issue-12 case that
specs/lpdt/bench-abalone.yaml times for ours: min-max scaling on the whole data set, a random
1:7:2 public / private / test split, depth 4, min_samples_leaf 20, min_samples_split 2,
rho 0.5, epsilon 2. One untimed warm-up (numba compiles on the first call), then REPEATS
timed whole fits (construct, fit, predict); prints the median and the minimum in seconds.

Needs numpy, scikit-learn, scipy and numba, and the authors' package: installed
(`pip install LPDT`) or a checkout of Karlmyh/LPDT passed as --lpdt-src DIR.

    python scripts/time-authors-abalone.py --data-dir DIR [--repeats 20] [--lpdt-src DIR]
"""
import argparse
import sys

import numpy as np

from peer_timing import time_case

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--data-dir", required=True, help="folder holding abalone.csv")
parser.add_argument("--repeats", type=int, default=20)
parser.add_argument("--lpdt-src", help="a checkout of Karlmyh/LPDT (default: the installed LPDT)")
args = parser.parse_args()
if args.lpdt_src:
    sys.path.insert(0, args.lpdt_src)
from LPDT import LPDTreeRegressor  # noqa: E402
from sklearn.preprocessing import MinMaxScaler  # noqa: E402
from sklearn.tree import DecisionTreeRegressor  # noqa: E402

raw = np.loadtxt(f"{args.data_dir}/abalone.csv", delimiter=",")  # label in column 0
y, X = raw[:, 0], MinMaxScaler().fit_transform(raw[:, 1:])
perm = np.random.default_rng(1).permutation(len(y))
n_pub, n_pri = round(0.1 * len(y)), round(0.7 * len(y))
pub, pri, test = perm[:n_pub], perm[n_pub:n_pub + n_pri], perm[n_pub + n_pri:]


def authors_lpdt_m():
    m = LPDTreeRegressor(splitter="msemaxedge", estimator="random_permutation", epsilon=2,
                         proportion_budget=0.5, max_depth=4, min_samples_leaf=20,
                         min_samples_split=2, public_X=X[pub], public_Y=y[pub])
    return m.fit(X[pri], y[pri]).predict(X[test])


def sklearn_dt():
    return DecisionTreeRegressor(max_depth=4).fit(X[pri], y[pri]).predict(X[test])


for name, fit in [("authors LPDT-M", authors_lpdt_m), ("sklearn DT max_depth=4", sklearn_dt)]:
    time_case(name, fit, args.repeats, n_train=len(pri), n_public=len(pub), n_test=len(test))
