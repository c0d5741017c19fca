#!/usr/bin/env python3
"""Seconds of one fit + predict of the authors' DiPriMe forests (GitHub
shoryaconsul/DiPriMeFlip_Forest: DiPrimeForest in Classes/DiPrime.py, DiPrimeFlipForest in
Classes/DiPrimeFlip.py) on Parkinson's, called as their notebook
Notebooks/MedianTree_UCI.ipynb calls them for Table 1, the peers of Median, DiPriMe,
DiPriMeExp and DiPriMeFlip in specs/diprime/bench-parkinsons.yaml:

  Median       DiPrimeForest(n_trees=10, max_depth=d_full, max_features=5, partition=False), no eps
  DiPriMe      DiPrimeForest(n_trees=10, max_depth=d_part, max_features=1), eps=10, b_med=0.5
  DiPriMeExp   DiPrimeForest(n_trees=10, max_depth=d_part, max_features=5), eps=10, b_med=0.5
  DiPriMeFlip  DiPrimeFlipForest(n_trees=10, max_depth=d_part, max_features=5), eps=10, b_med=0.5

with the notebook's data preparation: raw features, sex (column 1) categorical, the target
total_UPDRS divided by its maximum and bounded by [0, 1], attribute ranges (gen_attdict) from
all rows, a random 90/10 split (n_train = floor(0.9 n) = 5287), d_full = 7 and d_part = 4 from
the notebook's tree_depth with occupancy 25. The notebook's helpers gen_attdict and
tree_depth are executed from the notebook's own cells, and the forests imported from its
Classes folder, so nothing of the authors' code is copied here.

Needs numpy and a checkout of shoryaconsul/DiPriMeFlip_Forest (its Classes and Notebooks
folders) passed as --src DIR.

    python scripts/time-authors-diprime.py --data-dir DIR --src DIR [--repeats 20] [--cases LIST]
"""
import argparse
import json
import math
import random
import sys
import warnings

import numpy as np

from peer_timing import time_case

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--data-dir", required=True, help="folder holding parkinsons.csv")
parser.add_argument("--src", required=True, help="a checkout of shoryaconsul/DiPriMeFlip_Forest")
parser.add_argument("--repeats", type=int, default=20)
parser.add_argument("--cases", default="DiPriMe,DiPriMeExp,DiPriMeFlip",
                    help="comma-separated, from Median, DiPriMe, DiPriMeExp, DiPriMeFlip "
                         "(Median, seconds per fit in Python, is left out by default)")
args = parser.parse_args()
warnings.filterwarnings("ignore")  # as the notebook does (empty slices, log 0 in the scores)

sys.path.insert(0, f"{args.src}/Classes")
from DiPrime import DiPrimeForest  # noqa: E402
from DiPrimeFlip import DiPrimeFlipForest  # noqa: E402

# The notebook's helper cells (gen_attdict, tree_depth), executed as they are.
notebook = json.load(open(f"{args.src}/Notebooks/MedianTree_UCI.ipynb"))
helpers = {"np": np}
for cell in notebook["cells"]:
    source = "".join(cell["source"])
    if cell["cell_type"] == "code" and ("def gen_attdict" in source or "def tree_depth" in source):
        exec(source, helpers)
gen_attdict, tree_depth = helpers["gen_attdict"], helpers["tree_depth"]

raw = np.loadtxt(f"{args.data_dir}/parkinsons.csv", delimiter=",")  # total_UPDRS in column 0
y, X = raw[:, 0] / raw[:, 0].max(), raw[:, 1:]
cat_idx = [1]
A = gen_attdict(X, cat_idx)
bnds_y = np.array([0, 1])
np.random.seed(10)  # the notebook's seed; Python's random (draws inside the trees) seeded too
random.seed(10)
n_train = math.floor(0.9 * len(y))
perm = np.random.permutation(len(y))
X_tr, y_tr, X_tst = X[perm[:n_train]], y[perm[:n_train]], X[perm[n_train:]]
d_full = tree_depth(n_train, 25)
d_part = tree_depth(n_train, 25, partition=True, num_trees=10)


def forest(cls, depth, k, private, **kw):
    def fit():
        m = cls(n_trees=10, max_depth=depth, max_features=k, **kw)
        if private:
            m.fit(X_tr, y_tr, A, cat_idx, bnds_y, eps=10, b_med=0.5)
        else:
            m.fit(X_tr, y_tr, A, cat_idx, bnds_y)
        return m.predict(X_tst, cat_idx)
    return fit


CASES = {
    "Median": (d_full, forest(DiPrimeForest, d_full, 5, False, partition=False)),
    "DiPriMe": (d_part, forest(DiPrimeForest, d_part, 1, True)),
    "DiPriMeExp": (d_part, forest(DiPrimeForest, d_part, 5, True)),
    "DiPriMeFlip": (d_part, forest(DiPrimeFlipForest, d_part, 5, True)),
}
for name in args.cases.split(","):
    depth, fit = CASES[name]
    time_case(f"authors {name} depth={depth}", fit, args.repeats,
              n_train=len(y_tr), n_test=len(X_tst))
