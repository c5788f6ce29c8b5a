#!/usr/bin/env bash
# D7 (H200, session 51): the Python package's GPU run (last recorded in session 6, on an
# H100): the wheel from scripts/python-wheel.sh in build/py/dist, carried; run as
#   PYTHONUNBUFFERED=1 W8A8_STEP_TIMEOUT=170 OUT=$OUT scripts/gpu-python.sh install+gpu+model+cpu+bench
# (the tuning database it leaves in d7/gpu-python/ is not kept).
