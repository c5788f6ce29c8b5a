#!/usr/bin/env python3
"""The shipped H200 sm90_gemm rows of M buckets 256 and 512 (fast accumulation, not swap) as
INSERTs with ",trigger=1" appended to the config: the user database of d8.sh. Session 39
generalized this script to any buckets (bench/results-2026-11-28-s39/trig_rows.py); this runs
that one with 256,512.

    python3 bench/results-2026-11-28-s38/trig1_rows.py > /tmp/trig1.sql
    w8a8 cache --db carry/trig1.db import /tmp/trig1.sql     (84 rows on session 38's cache)
"""
import os
import runpy
import sys

sys.argv = [sys.argv[0], "256,512"]
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                            "results-2026-11-28-s39", "trig_rows.py"), run_name="__main__")
