"""What the peers' self-tests share: named checks that record their outcome (`RESULTS`) and print PASS/FAIL with the
time they took, and the equality assertion they use."""

import time
import traceback

RESULTS = []


def check(name, fn):
    t0 = time.time()
    try:
        fn()
        RESULTS.append((name, True))
        print(f"PASS {name} ({time.time() - t0:.2f}s)", flush=True)
    except Exception:
        RESULTS.append((name, False))
        print(f"FAIL {name}\n{traceback.format_exc()}", flush=True)


def eq(actual, expected, what=""):
    if actual != expected:
        raise AssertionError(f"{what}: expected {expected!r}, got {actual!r}")
