"""The timing loop shared by the scripts that time a peer's code (time-authors-*.py,
time-sklearn-forests.py) on the cases of the `dp-repro bench` specs: one untimed warm-up
(numba compiles, caches fill), then REPEATS timed calls of a whole fit + predict; one tidy
line per case with the median and the minimum in seconds, to set beside the
median_seconds / min_seconds of `dp-repro bench`'s timing.csv.
"""
import statistics
import time


def time_case(name, fit, repeats, **sizes):
    """Time `fit()` (a zero-argument callable doing one whole construct + fit + predict):
    one untimed warm-up, then `repeats` timed calls. Prints
    `NAME: k=v ... median=S s min=S s over REPEATS` (sizes such as n_train, n_test as
    keyword arguments) and returns the median in seconds."""
    fit()
    seconds = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fit()
        seconds.append(time.perf_counter() - t0)
    median = statistics.median(seconds)
    size_text = " ".join(f"{k}={v}" for k, v in sizes.items())
    print(f"{name}: {size_text} median={median:.6f} s min={min(seconds):.6f} s over {repeats}",
          flush=True)
    return median
