# SPDX-License-Identifier: GPL-2.0
"""The project's gate, wq-kunit check: the tools' own tests, every kernel
in every boot configuration and on every architecture, the debug build
catching a broken case, W=1, sparse and kernel-doc, checkpatch and
shellcheck, the coverage map and the LAVA jobs; each a step with its
verdict, every failed one named in the summary and counted in its last
line, and the record the claims are settled from.  It may import the
evidence, the report, LAVA, build, verdicts, tree, configs and base."""
