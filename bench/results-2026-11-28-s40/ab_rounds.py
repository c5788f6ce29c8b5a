#!/usr/bin/env python3
"""Session 40's A B B A table, since session 45 the tool bench/ab_rounds.py (this file runs it,
for the scripts of sessions 40-45 that name this path)."""
import os
import sys

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ab_rounds.py")
os.execv(sys.executable, [sys.executable, TOOL] + sys.argv[1:])
