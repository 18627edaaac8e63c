"""Diagnose a distributed run: N ranks started by torchrun, checked for what only exists across ranks.

Two sides share this folder. The parent side (launch.py) starts and watches the run and never imports
torch. Everything else runs in the user's interpreter, loaded by path (see bootstrap.py): agent.py is
torchrun's own launcher in a process of its own, rank.py is each rank's entry point, probe.py measures
one rank, and checks_*.py judge the measurements of all ranks on rank 0. Those modules import only the
standard library, torch, ../checks and each other, all relatively.

This file is imported on both sides: it holds names only.
"""

# The distributed checks, in the order they are reported (each module's CHECK.id; a test keeps them equal).
CHECK_IDS = ("ranks_parameters_agree", "ranks_gradients_agree", "ranks_data_shards", "ranks_random_streams",
             "ranks_nonfinite_agree", "ranks_clip_norm_agree", "ranks_batchnorm_stats", "ranks_metric_reduced")
