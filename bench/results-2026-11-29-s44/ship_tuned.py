#!/usr/bin/env python3
"""Ship a call's tuned rows where they ran >= 1.02x the shipped row in both A B B A pairs
(DIR/tune/table.txt), block scales: session 44's D2 and D3, through bench/ship_tuned.py (this
script's code until session 45 made it a tool for any granularity).

    python3 bench/results-2026-11-29-s44/ship_tuned.py d2|d3 [W8A8]   (from the repository
    root; W8A8 the command, default build/ci/w8a8)
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if len(sys.argv) < 2 or sys.argv[1] not in ("d2", "d3"):
    raise SystemExit(__doc__)
w8a8 = sys.argv[2] if len(sys.argv) > 2 else "build/ci/w8a8"
os.execv(sys.executable, [sys.executable, "bench/ship_tuned.py", os.path.join(HERE, sys.argv[1]),
                          "block", "fast", "--w8a8", w8a8])
