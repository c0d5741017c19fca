#!/usr/bin/env python3
"""Seconds of one fit + predict of scikit-learn's RandomForestRegressor and
ExtraTreesRegressor on Parkinson's at DiPriMe Table 1's settings, the peers of RF and ERT in
specs/diprime/bench-parkinsons.yaml.

Matched (the authors' notebook calls, docs/methods/diprime.md §4.1 and §6.3, which our RF and
ERT reproduce): n_estimators=10; max_depth = d_full = floor(log2(n_train / 25)) = 7 on
Parkinson's (the occupancy-25 depth rule, card §5); min_samples_leaf=5; max_features=5;
bootstrap on for RF (sklearn's default), off for ERT (ExtraTrees' default); squared error;
raw unscaled features (sex read as a number); the target total_UPDRS divided by its maximum;
a random 90/10 split, n_train = floor(0.9 n) = 5287; one thread (n_jobs=None, as ours runs
with --jobs 1). Not matched: the random streams (ours draws from seeded Pcg64 streams, not
NumPy's), so the split rows and the trees differ from ours in their draws, not in law;
sklearn's Cython trees use float32 features, ours float64.

Needs numpy and scikit-learn.

    python scripts/time-sklearn-forests.py --data-dir DIR [--repeats 20]
"""
import argparse
import math

import numpy as np
from sklearn.ensemble import ExtraTreesRegressor, RandomForestRegressor

from peer_timing import time_case

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--data-dir", required=True, help="folder holding parkinsons.csv")
parser.add_argument("--repeats", type=int, default=20)
args = parser.parse_args()

raw = np.loadtxt(f"{args.data_dir}/parkinsons.csv", delimiter=",")  # total_UPDRS in column 0
y, X = raw[:, 0] / raw[:, 0].max(), raw[:, 1:]
n_train = math.floor(0.9 * len(y))
perm = np.random.default_rng(1).permutation(len(y))
train, test = perm[:n_train], perm[n_train:]
d_full = math.floor(math.log2(n_train / 25))


def forest(cls):
    def fit():
        m = cls(n_estimators=10, max_depth=d_full, min_samples_leaf=5, max_features=5)
        return m.fit(X[train], y[train]).predict(X[test])
    return fit


for name, cls in [("sklearn RandomForestRegressor", RandomForestRegressor),
                  ("sklearn ExtraTreesRegressor", ExtraTreesRegressor)]:
    time_case(f"{name} (RF/ERT) depth={d_full}", forest(cls), args.repeats,
              n_train=len(train), n_test=len(test))
