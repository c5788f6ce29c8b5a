#!/usr/bin/env bash
# Closing call (H200), session 44: the grids beside peers.py in the same call (shipped caches with
# D2 and D3's 14 tuned block rows; 20-call graph replays on both sides), then every GPU suite
# (the tuner's timing and winner rule changed; wave tiles shipped). As run, these lines were
# session 43's dclose.sh; they are now bench/closing_call.sh (which also records the memory
# clock).
bench/closing_call.sh dclose
