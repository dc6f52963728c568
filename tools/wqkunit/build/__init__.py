# SPDX-License-Identifier: GPL-2.0
"""Build a kernel once and boot it many times, through the tree's own
kunit.py: the tree prepared and locked, each Kconfig variant built in a
build directory of its own (a build with the inputs of the last one
skipped, its progress shown), each boot in QEMU or UML (a module boot
with its initramfs) followed and judged by the verdicts.  The one path
from build to verdict behind every command that boots.  It may import
tree, verdicts, configs and base."""
