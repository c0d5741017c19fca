#!/usr/bin/env python3
"""Seconds of one fit + predict of the authors' LPCT (GitHub Karlmyh/LPCT, LDPTreeClassifier
with estimator "laplace"; splitter "igmaxedge" for LPCT(Maxedge), "igreduction" with its
default search_number 10 for LPCT(CART)) on Diabetes, the peers of
specs/lpct/bench-diabetes.yaml, at its grid point: max_depth 4, min_samples_leaf 8,
min_samples_split 1, lamda 1, epsilon 2.

Data as the authors' realdata.py prepares it: the public file diabetes_pub.csv gives X_Q, y_Q,
MinMaxScaler fitted on X_Q and applied to the private rows of diabetes_pri.csv, which are split
80/20 into training and test (train_test_split, random_state 0). Their realdata.py also times
predict_proba and two metrics inside its timer; here, as in ours, one construct + fit +
predict is timed.

Use a checkout at commit 7f81694 (V1, the submission, which produced Table 2; V2 grows the tree
on the private data, docs/methods/lpct.md §0), passed as --lpct-src DIR. Needs numpy,
scikit-learn, scipy and numba.

    git clone https://github.com/Karlmyh/LPCT ../LPCT && git -C ../LPCT checkout 7f81694
    python scripts/time-authors-lpct.py --data-dir DIR --lpct-src ../LPCT [--repeats 20]
"""
import argparse
import sys

import numpy as np

from peer_timing import time_case

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--data-dir", required=True,
                    help="folder holding diabetes_pub.csv and diabetes_pri.csv")
parser.add_argument("--lpct-src", required=True, help="a checkout of Karlmyh/LPCT")
parser.add_argument("--repeats", type=int, default=20)
args = parser.parse_args()
sys.path.insert(0, args.lpct_src)
from LDPCP import LDPTreeClassifier  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.preprocessing import MinMaxScaler  # noqa: E402

pub = np.loadtxt(f"{args.data_dir}/diabetes_pub.csv", delimiter=",")  # label in column 0
pri = np.loadtxt(f"{args.data_dir}/diabetes_pri.csv", delimiter=",")
scaler = MinMaxScaler()
X_Q, y_Q = scaler.fit_transform(pub[:, 1:]), pub[:, 0]
X_P, X_test, y_P, _ = train_test_split(scaler.transform(pri[:, 1:]), pri[:, 0], test_size=0.2,
                                       random_state=0)


def lpct(splitter):
    def fit():
        m = LDPTreeClassifier(splitter=splitter, estimator="laplace", epsilon=2, lamda=1,
                              max_depth=4, min_samples_leaf=8, min_samples_split=1,
                              X_Q=X_Q, y_Q=y_Q)
        return m.fit(X_P, y_P).predict(X_test)
    return fit


for name, splitter in [("authors LPCT(Maxedge)", "igmaxedge"), ("authors LPCT(CART)", "igreduction")]:
    time_case(name, lpct(splitter), args.repeats,
              n_train=len(y_P), n_public=len(y_Q), n_test=len(X_test))
