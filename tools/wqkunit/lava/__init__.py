# SPDX-License-Identifier: GPL-2.0
"""LAVA, the engine of KernelCI's and Linaro's labs: a job that boots the
suite (the tools' QEMU build and board, or a real board a lab builds for)
with one LAVA test case per KUnit case, checked against LAVA's own schema
by lava_helper.py under Debian's Python (lava-common), and the lava
command, which runs the QEMU job with lava-run and compares its results
with the tools' own.  It may import build, verdicts, tree, configs and
base."""
