# SPDX-License-Identifier: GPL-2.0
"""The evidence that the suite catches what it claims to: mutation
testing (each plausible regression must fail a case), fault injection (a
failing case leaves the kernel as found), the regression corpus of
upstream fixes undone, the all-tests comparison with and without the
series, the claims table and the coverage map settled from the last
gate's logs, the phase times of bench, and the records the quoted
figures come from.  It may import build, verdicts, tree, configs and
base; never the report, LAVA, the gate or the command line."""
